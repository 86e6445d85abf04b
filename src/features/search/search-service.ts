// One search across the inventory (the header's search box): assets of the graph by name, host name,
// FQDN, address, MAC or serial number, and the sub-record rows (packages, processes, services,
// interfaces) by their name and what the list's q searches in them, grouped by type with a count.
// Every group reads through an index and stops at MATCH_CAP matches, so a search costs the same on a
// small estate as on a large one; its totals are then floors (capped).
import type { Database } from '../../platform/postgres/postgres-client.js';
import { likeLiteral } from '../../platform/postgres/postgres-client.js';
import { int, type NeoGraph } from '../../platform/neo4j/neo4j-graph.js';
import type { components } from '../../platform/http/api-types.js';
import type { AssetReads } from '../assets/asset-summary.js';
import { identifierKey, normaliseIp, normaliseMac, normaliseSerial, type Identifier, type IdentityLookup } from '../inventory/asset-identity.js';
import { typeLabel, type AssetType } from '../inventory/asset-taxonomy.js';
import { SUB_RECORD_KINDS, type SubRecordKindOf } from '../inventory/sub-record-kinds.js';

export type SearchGroup = components['schemas']['SearchGroup'];
type SearchHit = SearchGroup['hits'][number];

/** Matches read per branch (graph) or per sub-record kind before counting stops. */
export const MATCH_CAP = 1000;
/** The shortest text a sub-record table is searched with: its trigram index needs three characters. */
const TRIGRAM = 3;

interface GraphRow {
  assetType: AssetType;
  total: number;
  hits: { id: string; displayName: string; serialNumber: string | null; fqdn: string | null; hostname: string | null; ipAddresses: string[] | null; macAddresses: string[] | null }[];
}

interface RowMatch {
  total: number;
  id: string;
  assetId: string;
  name: string;
  detail: string | null;
}

/** What tells a kind's rows apart besides the name: the column shown as its model (a package's version), else its first searched one. */
function detailColumn(kind: SubRecordKindOf): string | undefined {
  const columns: readonly { name: string; shownAs?: string; searched?: true }[] = kind.columns;
  return (columns.find((c) => c.shownAs === 'model') ?? columns.find((c) => c.searched))?.name;
}

export class SearchService {
  constructor(
    private readonly graph: NeoGraph,
    private readonly db: Database,
    private readonly identities: IdentityLookup,
    private readonly assets: Pick<AssetReads, 'summaries'>,
  ) {
    graph.catalog.require('search/search-assets');
  }

  /** The groups that `text` finds, each with its first `limit` hits; graph types first, most matches first, then the sub-record kinds. */
  async search(text: string, limit: number): Promise<SearchGroup[]> {
    const q = text.trim().toLowerCase();
    const [graphGroups, rowGroups] = await Promise.all([
      this.graphGroups(text.trim(), limit),
      q.length >= TRIGRAM ? Promise.all(SUB_RECORD_KINDS.map((kind) => this.rowGroup(kind, q, limit))) : Promise.resolve([]),
    ]);
    return [...graphGroups, ...rowGroups.filter((g) => g.total > 0)];
  }

  private async graphGroups(text: string, limit: number): Promise<SearchGroup[]> {
    // An address, a MAC or a serial number is found whole through the identity index, in any of its spellings.
    const wanted: Identifier[] = [];
    const ip = normaliseIp(text);
    const mac = normaliseMac(text);
    const serial = normaliseSerial(text);
    if (ip) wanted.push({ rule: 'IP_ADDRESS', value: ip });
    if (mac) wanted.push({ rule: 'MAC_ADDRESS', value: mac });
    if (serial) wanted.push({ rule: 'SERIAL_NUMBER', value: serial });
    const found = await this.identities.lookup(wanted);
    // Each found asset's id, with the value it was found by.
    const matchedBy = new Map<string, string>();
    for (const id of wanted) {
      const known = found.get(identifierKey(id));
      if (known) matchedBy.set(known.assetId, id.value);
    }
    const prefix = text.toUpperCase();
    const rows = await this.graph.read<GraphRow>('search/search-assets', {
      q: text.toLowerCase(), serial: prefix, ids: [...matchedBy.keys()], cap: int(MATCH_CAP), limit: int(limit),
    });
    const capped = rows.reduce((n, r) => n + r.total, 0) >= MATCH_CAP;
    return rows.map((r) => ({
      assetType: r.assetType,
      assetTypeLabel: typeLabel(r.assetType),
      total: r.total,
      capped,
      hits: r.hits.map((h): SearchHit => ({
        id: h.id,
        displayName: h.displayName,
        assetType: r.assetType,
        detail: matchedBy.get(h.id) || (h.serialNumber?.startsWith(prefix) ? h.serialNumber : null) || h.ipAddresses?.[0] || h.fqdn || h.hostname || null,
        host: null,
      })),
    }));
  }

  /** The rows of a kind whose name or searched columns hold q (their trigram index), with their hosts' names. */
  private async rowGroup(kind: SubRecordKindOf, q: string, limit: number): Promise<SearchGroup> {
    const like = `%${likeLiteral(q)}%`;
    const searched = [kind.name, ...kind.columns.filter((c) => 'searched' in c && c.searched).map((c) => c.name)];
    const detail = detailColumn(kind);
    const { rows } = await this.db.raw(
      `WITH m AS (
         SELECT id, asset_id, ?? AS name, ${detail ? '??::text' : 'NULL::text'} AS detail FROM ??
          WHERE ${searched.map(() => '?? ILIKE ?').join(' OR ')}
          LIMIT ?)
       SELECT (SELECT count(*)::int FROM m) AS total, m.id, m.asset_id AS "assetId", m.name, m.detail FROM m
        ORDER BY lower(m.name) LIKE ? DESC, m.name, m.id
        LIMIT ?`,
      [kind.name, ...(detail ? [detail] : []), kind.table, ...searched.flatMap((c) => [c, like]), MATCH_CAP, `${likeLiteral(q)}%`, limit],
    );
    const matches = rows as RowMatch[];
    const hosts = new Map((await this.assets.summaries([...new Set(matches.map((m) => m.assetId))])).map((h) => [h.id, h.displayName]));
    const total = matches[0]?.total ?? 0;
    return {
      assetType: kind.assetType,
      assetTypeLabel: typeLabel(kind.assetType),
      total,
      capped: total >= MATCH_CAP,
      hits: matches.map((m) => ({
        id: m.id,
        displayName: m.name,
        assetType: kind.assetType,
        detail: m.detail,
        host: hosts.has(m.assetId) ? { id: m.assetId, displayName: hosts.get(m.assetId) as string } : null,
      })),
    };
  }
}
