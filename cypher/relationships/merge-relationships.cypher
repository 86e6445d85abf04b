// Load step: one row per observed relationship { type, source, target } between asset ids. An
// edge that touches a DECOMMISSIONED asset stays inactive; a retired edge seen again comes back.
// updatedAt and changeSeq move when the edge is created, comes back, or its activity changes.
{{> changes/_next-seq}}
UNWIND range(0, size($rows) - 1) AS i
WITH txSeq, i, $rows[i] AS row
MATCH (s:Asset {id: row.source})
MATCH (t:Asset {id: row.target})
MERGE (s)-[r:$(row.type)]->(t)
ON CREATE SET r.id = randomUUID(), r.firstSeenAt = datetime($observedAt), r.sources = [], r.createdSeq = txSeq * 1000000 + i
WITH txSeq, i, s, t, r, NOT (s.status = 'DECOMMISSIONED' OR t.status = 'DECOMMISSIONED') AS active
WITH txSeq, i, r, active, r.createdSeq = txSeq * 1000000 + i AS created, r.retiredAt IS NOT NULL OR r.active IS NULL OR r.active <> active AS changed
SET r.active = active,
    r.retiredAt = null,
    r.lastSeenAt = datetime($observedAt),
    r.sources = CASE WHEN $source IN r.sources THEN r.sources ELSE r.sources + $source END,
    r.updatedAt = CASE WHEN created OR changed THEN datetime() ELSE r.updatedAt END,
    r.changeKind = CASE WHEN created THEN 'CREATED' WHEN changed THEN 'UPDATED' ELSE r.changeKind END,
    r.changeSeq = CASE WHEN created OR changed THEN txSeq * 1000000 + i ELSE r.changeSeq END
RETURN count(r) AS merged
