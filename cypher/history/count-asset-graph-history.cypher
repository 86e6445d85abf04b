// How many entries the graph's part of an asset's history holds within the filter (see
// find-asset-graph-history).
MATCH (a:Asset {id: $id})
CALL (a) {
  UNWIND coalesce(a.statusAt, []) AS at
  RETURN 'status' AS field, at
  UNION ALL
  MATCH (a)-[r]-(:Asset)
  UNWIND coalesce(r.activePeriods, []) AS at
  RETURN type(r) AS field, at
}
WITH field, at
WHERE ($fields IS NULL OR field IN $fields) AND ($from IS NULL OR at >= $from) AND ($to IS NULL OR at < $to)
RETURN count(*) AS total
