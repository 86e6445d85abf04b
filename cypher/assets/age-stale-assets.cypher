// Aging, second step: STALE assets not seen since the cutoff become INACTIVE (staleSince kept),
// each a change of the feed. DECOMMISSIONED assets are never touched.
{{> changes/_next-seq}}
MATCH (a:Asset)
WHERE a.status = 'STALE' AND a.lastSeenAt < datetime($cutoff)
WITH txSeq, a LIMIT $batch
WITH txSeq, collect(a) AS aged
UNWIND range(0, size(aged) - 1) AS i
WITH txSeq, i, aged[i] AS a
SET a.statusAt = coalesce(a.statusAt, []) + datetime().epochMillis, a.statusTo = coalesce(a.statusTo, []) + 'INACTIVE', a.statusBy = coalesce(a.statusBy, []) + 'SYSTEM:aging'
SET a.status = 'INACTIVE', a.updatedAt = datetime(), a.changeKind = 'INACTIVE', a.changeSeq = txSeq * 1000000 + i
RETURN count(a) AS moved
