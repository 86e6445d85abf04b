// What discovery remembers per address between runs: the pinned SSH host key and TLS certificate,
// and the credential that last worked per method (offered first next time); the hosts each run
// reached; and the assets each connector scope (a vCenter) reported.
import { pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';
import type { MatchRule } from '../ingestion/asset-identity.js';
import type { ScanOutcome } from './scan-graph-repository.js';

export interface PinnedKey {
  keyType: string;
  fingerprint: string;
}

export interface PinnedCertificate {
  fingerprint: string;
  subject: string;
}

export interface RunHost {
  address: string;
  assetId: string;
  created: boolean;
  matchedBy: MatchRule | null;
  methods: string[];
  outcome: ScanOutcome;
}

export type RunHostRow = RunHost & { assetDisplayName: string | null };

export class HostStateStore {
  constructor(private readonly db: Database) {}

  pinnedKey(address: string, port: number): Promise<PinnedKey | undefined> {
    return this.db('ssh_host_keys').select('key_type as keyType', 'fingerprint').where({ address, port }).first();
  }

  /** Pins the key at first contact; a later contact with the same key only moves last_seen_at. */
  async pin(address: string, port: number, key: PinnedKey): Promise<void> {
    await this.db('ssh_host_keys')
      .insert({ address, port, key_type: key.keyType, fingerprint: key.fingerprint })
      .onConflict(['address', 'port'])
      .merge({ last_seen_at: this.db.fn.now() });
  }

  pinnedCertificate(address: string, port: number): Promise<PinnedCertificate | undefined> {
    return this.db('tls_certificate_pins').select('fingerprint', 'subject').where({ address, port }).first();
  }

  /** Pins the certificate at first contact; a later contact with the same one only moves last_seen_at. */
  async pinCertificate(address: string, port: number, certificate: PinnedCertificate): Promise<void> {
    await this.db('tls_certificate_pins')
      .insert({ address, port, fingerprint: certificate.fingerprint, subject: certificate.subject.slice(0, 500) })
      .onConflict(['address', 'port'])
      .merge({ last_seen_at: this.db.fn.now() });
  }

  /** The assets a scope reported in a run, stamped with its observation time. */
  async recordScopeMembers(scope: string, assetIds: string[], observedAt: string): Promise<void> {
    for (let i = 0; i < assetIds.length; i += 1000) {
      await this.db('discovery_scope_members')
        .insert(assetIds.slice(i, i + 1000).map((id) => ({ scope, asset_id: id, last_seen_at: observedAt })))
        .onConflict(['scope', 'asset_id'])
        .merge(['last_seen_at']);
    }
  }

  /** The assets of a scope that the read at observedAt did not report. */
  unseenScopeMembers(scope: string, observedAt: string): Promise<string[]> {
    return this.db('discovery_scope_members').where({ scope }).where('last_seen_at', '<', observedAt).pluck('asset_id');
  }

  /** Takes retired assets off a scope. */
  async forgetScopeMembers(scope: string, assetIds: string[]): Promise<void> {
    if (assetIds.length) await this.db('discovery_scope_members').where({ scope }).whereIn('asset_id', assetIds).delete();
  }

  async rememberedCredential(address: string, method: string): Promise<string | undefined> {
    const row = await this.db('discovery_address_credentials').select('credential_id').where({ address, method }).first();
    return row?.credential_id;
  }

  async remember(address: string, method: string, credentialId: string): Promise<void> {
    await this.db('discovery_address_credentials')
      .insert({ address, method, credential_id: credentialId })
      .onConflict(['address', 'method'])
      .merge({ credential_id: credentialId, succeeded_at: this.db.fn.now() });
  }

  async recordRunHosts(runId: string, hosts: RunHost[]): Promise<void> {
    if (hosts.length === 0) return;
    await this.db('discovery_run_hosts')
      .insert(hosts.map((h) => ({ run_id: runId, address: h.address, asset_id: h.assetId, created: h.created, matched_by: h.matchedBy, methods: h.methods, outcome: h.outcome })))
      .onConflict(['run_id', 'address'])
      .merge();
  }

  /** A page of a run's hosts by address, each with its asset's name now (null once the asset is gone). */
  runHosts(runId: string, page: number, size: number): Promise<{ rows: RunHostRow[]; total: number }> {
    const base = this.db('discovery_run_hosts as h').where('h.run_id', runId);
    return pagedQuery<RunHostRow>(
      base,
      (q) => q
        .leftJoin('asset_names as n', 'n.asset_id', 'h.asset_id')
        .select('h.address', 'h.asset_id as assetId', 'n.display_name as assetDisplayName', 'h.created', 'h.matched_by as matchedBy', 'h.methods', 'h.outcome')
        .orderBy('h.address'),
      page,
      size,
    );
  }
}
