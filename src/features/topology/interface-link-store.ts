// Interface connections (docs/interface.md §2.12) as port-to-port links between assets, for the topology.
import type { Database } from '../../platform/postgres/postgres-client.js';

export interface InterfaceLink {
  id: string;
  sourceAssetId: string;
  sourceInterfaceId: string;
  sourcePort: string;
  targetAssetId: string;
  targetInterfaceId: string;
  targetPort: string;
  discoveredVia: string;
  confidence: number;
}

const SELECT = `SELECT c.id, s.asset_id AS "sourceAssetId", s.id AS "sourceInterfaceId", s.name AS "sourcePort",
       t.asset_id AS "targetAssetId", t.id AS "targetInterfaceId", t.name AS "targetPort",
       c.discovered_via AS "discoveredVia", c.confidence::float8 AS confidence
  FROM interface_connections c
  JOIN network_interfaces s ON s.id = c.source_interface_id
  JOIN network_interfaces t ON t.id = c.target_interface_id`;

// Both reads run as named prepared statements, planned once per connection: a custom plan for a
// list of hundreds of asset ids (a topology's answer) cost PostgreSQL as much as running it.
const AMONG = 'topology-links-among';
const TOUCHING = 'topology-links-touching';

export class InterfaceLinkStore {
  constructor(private readonly db: Database) {}

  /** The links whose two ends are both among these assets, at most `limit`. */
  async among(assetIds: string[], limit: number): Promise<InterfaceLink[]> {
    if (assetIds.length < 2) return [];
    const { rows } = await this.db
      .raw(`${SELECT} WHERE s.asset_id = ANY(:ids::uuid[]) AND t.asset_id = ANY(:ids::uuid[]) ORDER BY c.id LIMIT :limit`, { ids: assetIds, limit })
      .options({ name: AMONG });
    return rows as InterfaceLink[];
  }

  /** The links with at least one end among these assets, at most `limit`. */
  async touching(assetIds: string[], limit: number): Promise<InterfaceLink[]> {
    if (assetIds.length === 0) return [];
    const { rows } = await this.db
      .raw(`SELECT * FROM (${SELECT} WHERE s.asset_id = ANY(:ids::uuid[]) UNION ${SELECT} WHERE t.asset_id = ANY(:ids::uuid[])) links ORDER BY id LIMIT :limit`, { ids: assetIds, limit })
      .options({ name: TOUCHING });
    return rows as InterfaceLink[];
  }
}
