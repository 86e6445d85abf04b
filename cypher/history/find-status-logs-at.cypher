// The status logs of these assets up to $at (epoch milliseconds): the times and statuses of each
// change by then (none: the asset did not exist yet). An unknown id is left out.
UNWIND $ids AS id
MATCH (a:Asset {id: id})
WITH a, size([t IN coalesce(a.statusAt, []) WHERE t <= $at]) AS n
RETURN a.id AS id, coalesce(a.statusAt, [])[0..n] AS at, coalesce(a.statusTo, [])[0..n] AS to
