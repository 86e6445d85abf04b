// Aging, first step: ACTIVE assets not seen since the cutoff become STALE (a batch at a time), each
// a change of the feed and of its status log.
{{> changes/_next-seq}}
MATCH (a:Asset)
WHERE a.status = 'ACTIVE' AND a.lastSeenAt < datetime($cutoff)
WITH txSeq, a LIMIT $batch
WITH txSeq, collect(a) AS aged
UNWIND range(0, size(aged) - 1) AS i
WITH txSeq, i, aged[i] AS a
SET a.statusAt = coalesce(a.statusAt, []) + datetime().epochMillis, a.statusTo = coalesce(a.statusTo, []) + 'STALE', a.statusBy = coalesce(a.statusBy, []) + 'SYSTEM:aging'
SET a.status = 'STALE', a.staleSince = datetime($now), a.updatedAt = datetime(), a.changeKind = 'STALE', a.changeSeq = txSeq * 1000000 + i
RETURN count(a) AS moved
