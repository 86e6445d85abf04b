// Retention: retired relationships older than the cutoff are deleted, a batch at a time, and the
// change counter remembers the last change number purged (GET /changes answers 410 to a reader
// behind it). An auto-commit statement.
MATCH ()-[r]->()
WHERE r.retiredAt < datetime($cutoff)
WITH r LIMIT $batch
WITH collect(r) AS purged, max(r.changeSeq) AS last
FOREACH (r IN purged | DELETE r)
WITH size(purged) AS removed, last
OPTIONAL MATCH (c:ChangeCounter {name: 'changes'})
FOREACH (x IN CASE WHEN c IS NOT NULL AND last IS NOT NULL THEN [c] ELSE [] END | SET x.purgedThrough = CASE WHEN coalesce(x.purgedThrough, 0) > last THEN x.purgedThrough ELSE last END)
RETURN removed
