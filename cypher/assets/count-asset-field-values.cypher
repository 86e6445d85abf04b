// The distinct values of one field of the assets ({{property}}: a.site or a.environment, chosen in
// code from a fixed list), each with the number of assets holding it, most common first, ties by
// value: $limit rows (the caller asks one more than it shows, to know whether more were left out).
MATCH (a:Asset)
WHERE {{property}} IS NOT NULL
WITH {{property}} AS value, count(*) AS count
ORDER BY count DESC, value
LIMIT $limit
RETURN value, count
