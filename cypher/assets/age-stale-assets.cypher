// Aging, second step: STALE assets not seen since the cutoff become INACTIVE (staleSince kept).
// DECOMMISSIONED assets are never touched.
MATCH (a:Asset)
WHERE a.status = 'STALE' AND a.lastSeenAt < datetime($cutoff)
WITH a LIMIT $batch
SET a.status = 'INACTIVE'
RETURN count(a) AS moved
