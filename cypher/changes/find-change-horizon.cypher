// The last change number given, and the last one whose entity the retention sweep has purged (a
// reader behind it has missed retirements and must resync).
OPTIONAL MATCH (c:ChangeCounter {name: 'changes'})
RETURN coalesce(c.seq, 0) * 1000000 AS head, coalesce(c.purgedThrough, 0) AS purgedThrough
