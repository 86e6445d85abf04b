// find-relationships-of-type with the counts by type of count-relationships-by-type ({{counts}}),
// for the filters that the count store serves: one round trip for a page and its total. The
// counts come once, as a row of their own (row null), not repeated on each of the page's rows.
RETURN null AS row, {{counts}}
UNION ALL
MATCH (s:Asset)-[r:{{type}}]->(t:Asset)
WHERE {{filters}}
RETURN {{> relationships/_relationship-row}} AS row, null AS totals, null AS inactive
ORDER BY r.id {{dir}}
SKIP $skip
LIMIT $limit
