// Known assets a run saw again: lastSeenAt and the source are stamped, a STALE or INACTIVE asset
// is ACTIVE again; nothing else of what other connectors know is overwritten.
UNWIND $ids AS id
MATCH (a:Asset {id: id})
SET a.lastSeenAt = datetime($observedAt),
    a.sources = CASE WHEN $source IN coalesce(a.sources, []) THEN a.sources ELSE coalesce(a.sources, []) + $source END,
    a.staleSince = CASE WHEN a.status IN ['STALE', 'INACTIVE'] THEN null ELSE a.staleSince END,
    a.status = CASE WHEN a.status IN ['STALE', 'INACTIVE'] THEN 'ACTIVE' ELSE a.status END
RETURN count(a) AS touched
