// Load step: one row per observed relationship { type, source, target } between asset ids. An
// edge that touches a DECOMMISSIONED asset stays inactive; a retired edge seen again comes back.
// updatedAt and changeSeq move when the edge is created, comes back, or its activity changes.
{{> changes/_next-seq}}
UNWIND range(0, size($rows) - 1) AS i
WITH txSeq, i, $rows[i] AS row, txSeq * 1000000 + i AS seq
MATCH (s:Asset {id: row.source})
MATCH (t:Asset {id: row.target})
// One MERGE per relationship type (the list of asset-taxonomy.ts): Neo4j 5 plans a MERGE on a
// type given as a value, $(row.type), as a scan of every relationship of the graph for each row.
CALL (s, t, row, seq) {
  WITH * WHERE row.type = 'RUNS_ON' MERGE (s)-[r:RUNS_ON]->(t) ON CREATE SET r.createdSeq = seq RETURN r
  UNION ALL
  WITH * WHERE row.type = 'HOSTS_VM' MERGE (s)-[r:HOSTS_VM]->(t) ON CREATE SET r.createdSeq = seq RETURN r
  UNION ALL
  WITH * WHERE row.type = 'HOSTS_CONTAINER' MERGE (s)-[r:HOSTS_CONTAINER]->(t) ON CREATE SET r.createdSeq = seq RETURN r
  UNION ALL
  WITH * WHERE row.type = 'MANAGED_BY' MERGE (s)-[r:MANAGED_BY]->(t) ON CREATE SET r.createdSeq = seq RETURN r
  UNION ALL
  WITH * WHERE row.type = 'CONTAINS' MERGE (s)-[r:CONTAINS]->(t) ON CREATE SET r.createdSeq = seq RETURN r
  UNION ALL
  WITH * WHERE row.type = 'USES_DATASTORE' MERGE (s)-[r:USES_DATASTORE]->(t) ON CREATE SET r.createdSeq = seq RETURN r
  UNION ALL
  WITH * WHERE row.type = 'HAS_INTERFACE' MERGE (s)-[r:HAS_INTERFACE]->(t) ON CREATE SET r.createdSeq = seq RETURN r
  UNION ALL
  WITH * WHERE row.type = 'COMMUNICATES_WITH' MERGE (s)-[r:COMMUNICATES_WITH]->(t) ON CREATE SET r.createdSeq = seq RETURN r
}
WITH seq, s, t, r, r.createdSeq = seq AS created, NOT (s.status = 'DECOMMISSIONED' OR t.status = 'DECOMMISSIONED') AS active
CALL (r, created) {
  WITH r WHERE created
  SET r.id = randomUUID(), r.firstSeenAt = datetime($observedAt), r.sources = []
}
WITH seq, r, active, created, r.retiredAt IS NOT NULL OR r.active IS NULL OR r.active <> active AS changed
SET r.active = active,
    r.retiredAt = null,
    r.lastSeenAt = datetime($observedAt),
    r.sources = CASE WHEN $source IN r.sources THEN r.sources ELSE r.sources + $source END,
    r.updatedAt = CASE WHEN created OR changed THEN datetime() ELSE r.updatedAt END,
    r.changeKind = CASE WHEN created THEN 'CREATED' WHEN changed THEN 'UPDATED' ELSE r.changeKind END,
    r.changeSeq = CASE WHEN created OR changed THEN seq ELSE r.changeSeq END
RETURN count(r) AS merged
