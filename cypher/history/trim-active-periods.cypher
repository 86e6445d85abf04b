// History retention: the active periods of an edge that ended before $cutoff (epoch milliseconds)
// go, start and end together, so that the count stays odd for an edge active now. At most $batch
// edges a statement.
MATCH ()-[r]->()
WHERE size(coalesce(r.activePeriods, [])) > 1 AND r.activePeriods[1] < $cutoff
WITH r, 2 * size([i IN range(1, size(r.activePeriods) - 1, 2) WHERE r.activePeriods[i] < $cutoff]) AS drop
LIMIT $batch
SET r.activePeriods = r.activePeriods[drop..], r.activeBy = r.activeBy[drop..]
RETURN count(r) AS trimmed, sum(drop) AS removed
