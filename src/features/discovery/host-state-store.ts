// What discovery remembers per address between runs: the pinned SSH host key, and the credential
// that last worked per method (offered first next time); and the hosts each run reached.
import { pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';
import type { MatchRule } from '../import/asset-identity.js';
import type { ScanOutcome } from './scan-graph-repository.js';

export interface PinnedKey {
  keyType: string;
  fingerprint: string;
}

export interface RunHost {
  address: string;
  assetId: string;
  created: boolean;
  matchedBy: MatchRule | null;
  methods: string[];
  outcome: ScanOutcome;
}

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

  runHosts(runId: string, page: number, size: number): Promise<{ rows: RunHost[]; total: number }> {
    const base = this.db('discovery_run_hosts').where({ run_id: runId });
    return pagedQuery<RunHost>(
      base,
      (q) => q.select('address', 'asset_id as assetId', 'created', 'matched_by as matchedBy', 'methods', 'outcome').orderBy('address'),
      page,
      size,
    );
  }
}
