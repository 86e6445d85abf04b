// What discovery remembers per address between runs: the pinned SSH host key and TLS certificate
// (one mechanism for both: pinned at first contact, another one refused and kept as presented
// until an administrator accepts it), and the credential that last worked per method (offered
// first next time); and the hosts each run reached.
import type { Knex } from 'knex';
import { pagedQuery, type Database } from '../../platform/postgres/postgres-client.js';
import type { MatchRule } from '../inventory/asset-identity.js';
import type { ScanOutcome } from './scan-graph-repository.js';

export type PinKind = 'SSH_HOST_KEY' | 'TLS_CERTIFICATE';

/** A key or certificate as pinned: its fingerprint, and a word for people (the key type, the certificate's subject). */
export interface Pin {
  fingerprint: string;
  detail: string;
}

export interface PinRecord extends Pin {
  kind: PinKind;
  address: string;
  port: number;
  pinnedAt: Date;
  lastSeenAt: Date;
  /** The other one the host presented last, refused; null when it presented none. */
  presented: (Pin & { at: Date }) | null;
}

/** Pins a key or certificate at first contact; answers the pinned one when the host presents another (a connector's view). */
export interface Pins {
  pinOrCompare(kind: PinKind, address: string, port: number, seen: Pin): Promise<Pin | undefined>;
}

// The tables of the two kinds (their migrations named some columns differently).
const PIN_TABLES: Record<PinKind, { table: string; detail: string; detailLength: number; presentedDetail: string; pinnedAt: string }> = {
  SSH_HOST_KEY: { table: 'ssh_host_keys', detail: 'key_type', detailLength: 64, presentedDetail: 'presented_key_type', pinnedAt: 'first_seen_at' },
  TLS_CERTIFICATE: { table: 'tls_certificate_pins', detail: 'subject', detailLength: 500, presentedDetail: 'presented_subject', pinnedAt: 'pinned_at' },
};

export interface RunHost {
  address: string;
  assetId: string;
  created: boolean;
  matchedBy: MatchRule | null;
  methods: string[];
  outcome: ScanOutcome;
}

export type RunHostRow = RunHost & { assetDisplayName: string | null };

export class HostStateStore implements Pins {
  constructor(private readonly db: Database) {}

  /**
   * Pins `seen` at first contact; a later contact with the same one only moves last_seen_at. When
   * the host presents another, answers the pinned one and keeps `seen` as presented (one
   * statement: two workers meeting the host at once agree on the pin).
   */
  async pinOrCompare(kind: PinKind, address: string, port: number, seen: Pin): Promise<Pin | undefined> {
    const t = PIN_TABLES[kind];
    const detail = seen.detail.slice(0, t.detailLength);
    const same = 'p.fingerprint = EXCLUDED.fingerprint';
    const { rows } = await this.db.raw<{ rows: Pin[] }>(
      `INSERT INTO ?? AS p (address, port, ??, fingerprint) VALUES (?, ?, ?, ?)
       ON CONFLICT (address, port) DO UPDATE SET
         last_seen_at = CASE WHEN ${same} THEN now() ELSE p.last_seen_at END,
         presented_fingerprint = CASE WHEN ${same} THEN p.presented_fingerprint ELSE EXCLUDED.fingerprint END,
         ?? = CASE WHEN ${same} THEN p.?? ELSE EXCLUDED.?? END,
         presented_at = CASE WHEN ${same} THEN p.presented_at ELSE now() END
       RETURNING p.fingerprint, p.?? AS detail`,
      [t.table, t.detail, address, port, detail, seen.fingerprint, t.presentedDetail, t.presentedDetail, t.detail, t.detail],
    );
    const pinned = rows[0] as Pin;
    return pinned.fingerprint === seen.fingerprint ? undefined : pinned;
  }

  async pin(kind: PinKind, address: string, port: number, trx: Knex | Database = this.db): Promise<PinRecord | undefined> {
    const t = PIN_TABLES[kind];
    const row = await trx(t.table)
      .select('address', 'port', 'fingerprint', `${t.detail} as detail`, `${t.pinnedAt} as pinnedAt`, 'last_seen_at as lastSeenAt', 'presented_fingerprint', `${t.presentedDetail} as presented_detail`, 'presented_at')
      .where({ address, port })
      .first();
    if (!row) return undefined;
    const { presented_fingerprint: fingerprint, presented_detail: detail, presented_at: at, ...pin } = row;
    return { kind, ...pin, presented: fingerprint ? { fingerprint, detail: detail ?? '', at } : null };
  }

  /** Makes the key or certificate presented last the pin, if its fingerprint is `fingerprint`; answers the pin then. */
  async acceptPresented(kind: PinKind, address: string, port: number, fingerprint: string, trx: Knex): Promise<PinRecord | undefined> {
    const t = PIN_TABLES[kind];
    const changed = await trx(t.table)
      .where({ address, port, presented_fingerprint: fingerprint })
      .update({
        fingerprint: trx.raw('??', ['presented_fingerprint']),
        [t.detail]: trx.raw('coalesce(??, ??)', [t.presentedDetail, t.detail]),
        [t.pinnedAt]: trx.fn.now(),
        last_seen_at: trx.fn.now(),
        presented_fingerprint: null,
        [t.presentedDetail]: null,
        presented_at: null,
      });
    return changed ? this.pin(kind, address, port, trx) : undefined;
  }

  async rememberedCredential(address: string, method: string): Promise<string | undefined> {
    const row = await this.db('discovery_address_credentials').select('credential_id').where({ address, method }).first();
    return row?.credential_id;
  }

  /** The credential of the method that last worked at each of the addresses that has one. */
  async rememberedCredentials(addresses: string[], method: string): Promise<Map<string, string>> {
    const rows: { address: string; credential_id: string }[] = addresses.length
      ? await this.db('discovery_address_credentials').select('address', 'credential_id').where({ method }).whereRaw('address = ANY(?)', [addresses])
      : [];
    return new Map(rows.map((r) => [r.address, r.credential_id]));
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
