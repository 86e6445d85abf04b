// Load step: one row per observed relationship { type, source, target } between asset ids.
// An edge that touches a DECOMMISSIONED asset stays inactive.
UNWIND $rows AS row
MATCH (s:Asset {id: row.source})
MATCH (t:Asset {id: row.target})
MERGE (s)-[r:$(row.type)]->(t)
ON CREATE SET r.id = randomUUID(), r.firstSeenAt = datetime($observedAt), r.sources = []
SET r.active = NOT (s.status = 'DECOMMISSIONED' OR t.status = 'DECOMMISSIONED'),
    r.lastSeenAt = datetime($observedAt),
    r.sources = CASE WHEN $source IN r.sources THEN r.sources ELSE r.sources + $source END
RETURN count(r) AS merged
