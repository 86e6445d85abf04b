// Load step: one row per observed relationship { type, source, target } between asset ids. An
// edge that touches a DECOMMISSIONED asset stays inactive; a retired edge seen again comes back.
// updatedAt and changeSeq move when the edge is created, comes back, or its activity changes; each
// change of activity adds its time to activePeriods (starts and ends in turn: an odd count is an
// edge active now), the edge's history and what an as-of walk reads.
{{> changes/_next-seq}}
WITH txSeq, datetime($observedAt) AS observedAt
UNWIND range(0, size($rows) - 1) AS i
WITH observedAt, $rows[i] AS row, txSeq * 1000000 + i AS seq
MATCH (s:Asset {id: row.source})
MATCH (t:Asset {id: row.target})
// {{merges}}: one MERGE per relationship type of the taxonomy, each in its own branch
// (`WITH * WHERE row.type = 'T' MERGE (s)-[r:T]->(t) ON CREATE SET ... RETURN r`), written by code from its list:
// Neo4j 5 plans a MERGE on a type given as a value, $(row.type), as a scan of every relationship of
// the graph for each row.
CALL (s, t, row, seq, observedAt) {
  {{merges}}
}
WITH seq, observedAt, s, t, r, r.createdSeq = seq AS created, NOT (s.status = 'DECOMMISSIONED' OR t.status = 'DECOMMISSIONED') AS active
WITH seq, observedAt, r, active, created, r.retiredAt IS NOT NULL OR r.active IS NULL OR r.active <> active AS changed,
     coalesce(r.active, false) AND r.retiredAt IS NULL AS wasActive
SET r.activePeriods = CASE WHEN wasActive <> active THEN coalesce(r.activePeriods, []) + datetime().epochMillis ELSE r.activePeriods END,
    r.activeBy = CASE WHEN wasActive <> active THEN coalesce(r.activeBy, []) + ('SOURCE:' + $source) ELSE r.activeBy END
SET r.active = active,
    r.retiredAt = null,
    r.lastSeenAt = observedAt,
    r.sources = CASE WHEN $source IN r.sources THEN r.sources ELSE r.sources + $source END,
    r.updatedAt = CASE WHEN created OR changed THEN datetime() ELSE r.updatedAt END,
    r.changeKind = CASE WHEN created THEN 'CREATED' WHEN changed THEN 'UPDATED' ELSE r.changeKind END,
    r.changeSeq = CASE WHEN created OR changed THEN seq ELSE r.changeSeq END
RETURN count(r) AS merged
