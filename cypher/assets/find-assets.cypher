// A page of assets. {{filters}} is a conjunction of fixed predicates picked by the read model
// (each with its own parameter) and {{order}} an allow-listed property and direction: both come
// from code, never from the request.
MATCH (a:Asset)
WHERE {{filters}}
RETURN a {.*} AS asset
ORDER BY {{order}}, a.displayName, a.id
SKIP $skip
LIMIT $limit
