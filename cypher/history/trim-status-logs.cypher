// History retention: of each status log with two or more entries before $cutoff (epoch
// milliseconds), the older ones go; the last one before it stays (the asset's status at the cutoff,
// and what an entry at the cutoff changed from). At most $batch assets a statement.
MATCH (a:Asset)
WHERE size(coalesce(a.statusAt, [])) > 1 AND a.statusAt[1] < $cutoff
WITH a, size([t IN a.statusAt WHERE t < $cutoff]) - 1 AS drop
LIMIT $batch
SET a.statusAt = a.statusAt[drop..], a.statusTo = a.statusTo[drop..], a.statusBy = a.statusBy[drop..]
RETURN count(a) AS trimmed, sum(drop) AS removed
