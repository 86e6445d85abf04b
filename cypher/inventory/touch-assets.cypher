// Known assets a run saw again: lastSeenAt and the source are stamped, a STALE or INACTIVE asset
// is ACTIVE again (a change of the feed); nothing else of what other connectors know is overwritten.
{{> changes/_next-seq}}
UNWIND range(0, size($ids) - 1) AS i
WITH txSeq, i, $ids[i] AS id
MATCH (a:Asset {id: id})
WITH txSeq, i, a, a.status IN ['STALE', 'INACTIVE'] AS revived
SET a.lastSeenAt = datetime($observedAt),
    a.sources = CASE WHEN $source IN coalesce(a.sources, []) THEN a.sources ELSE coalesce(a.sources, []) + $source END,
    a.staleSince = CASE WHEN revived THEN null ELSE a.staleSince END,
    a.status = CASE WHEN revived THEN 'ACTIVE' ELSE a.status END,
    a.updatedAt = CASE WHEN revived THEN datetime() ELSE a.updatedAt END,
    a.changeKind = CASE WHEN revived THEN 'UPDATED' ELSE a.changeKind END,
    a.changeSeq = CASE WHEN revived THEN txSeq * 1000000 + i ELSE a.changeSeq END
RETURN count(a) AS touched
