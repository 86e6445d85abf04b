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

// The asset ids are bound once, as one array (m.ids), and both ends are matched by the asset
// columns kept beside the interfaces (migration 20261129000000), each with its own index.
const linksWhere = (condition: string) => `SELECT c.id, c.source_asset_id AS "sourceAssetId", s.id AS "sourceInterfaceId", s.name AS "sourcePort",
       c.target_asset_id AS "targetAssetId", t.id AS "targetInterfaceId", t.name AS "targetPort",
       c.discovered_via AS "discoveredVia", c.confidence::float8 AS confidence
  FROM (SELECT ?::uuid[] AS ids) m
  JOIN interface_connections c ON ${condition}
  JOIN network_interfaces s ON s.id = c.source_interface_id
  JOIN network_interfaces t ON t.id = c.target_interface_id
 ORDER BY c.id LIMIT ?`;
const AMONG_SQL = linksWhere('c.source_asset_id = ANY(m.ids) AND c.target_asset_id = ANY(m.ids)');
const TOUCHING_SQL = linksWhere('(c.source_asset_id = ANY(m.ids) OR c.target_asset_id = ANY(m.ids))');

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
      .raw(AMONG_SQL, [assetIds, limit])
      .options({ name: AMONG });
    return rows as InterfaceLink[];
  }

  /** The links with at least one end among these assets, at most `limit`. */
  async touching(assetIds: string[], limit: number): Promise<InterfaceLink[]> {
    if (assetIds.length === 0) return [];
    const { rows } = await this.db
      .raw(TOUCHING_SQL, [assetIds, limit])
      .options({ name: TOUCHING });
    return rows as InterfaceLink[];
  }
}
