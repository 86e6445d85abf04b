// Aging, first step: ACTIVE assets not seen since the cutoff become STALE (a batch at a time).
MATCH (a:Asset)
WHERE a.status = 'ACTIVE' AND a.lastSeenAt < datetime($cutoff)
WITH a LIMIT $batch
SET a.status = 'STALE', a.staleSince = datetime($now)
RETURN count(a) AS moved
