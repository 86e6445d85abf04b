// Retire step of a connector scope read in full (a vCenter): its assets that the read no longer
// showed become INACTIVE (a change of the feed); DECOMMISSIONED assets are never touched. Their
// edges go with retire-scope-relationships.
{{> changes/_next-seq}}
UNWIND range(0, size($ids) - 1) AS i
WITH txSeq, i, $ids[i] AS id
MATCH (a:Asset {id: id})
WHERE a.status IN ['ACTIVE', 'STALE']
SET a.statusAt = coalesce(a.statusAt, []) + datetime().epochMillis, a.statusTo = coalesce(a.statusTo, []) + 'INACTIVE', a.statusBy = coalesce(a.statusBy, []) + ('SOURCE:' + $source)
SET a.status = 'INACTIVE', a.staleSince = coalesce(a.staleSince, datetime($observedAt)), a.updatedAt = datetime(), a.changeKind = 'INACTIVE', a.changeSeq = txSeq * 1000000 + i
RETURN count(a) AS retired
