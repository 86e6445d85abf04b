// find-relationships-of-type with the counts by type of count-relationships-by-type ({{counts}}),
// read once before the page and carried on its rows: one round trip for a page and its total,
// for the filters that the count store serves. The id index is named: with the subquery first,
// the planner would otherwise expand from every asset and sort.
CALL () {
  RETURN {{counts}}
}
MATCH (s:Asset)-[r:{{type}}]->(t:Asset)
USING INDEX r:{{type}}(id)
WHERE {{filters}}
RETURN {{> relationships/_relationship-row}} AS row, totals, inactive
ORDER BY r.id {{dir}}
SKIP $skip
LIMIT $limit
