// The graph's part of an asset's history (GET /assets/{id}/history): its status log (statusAt,
// statusTo, statusBy) and the start and end of each period its edges were active (activePeriods, activeBy),
// newest first, or oldest first with $asc (a page read backwards). Each entry is keyed by its time
// (epoch milliseconds) and a text that orders entries of one millisecond: s<n> for a status, r<id>:<n>
// for an edge. $fields (status, or relationship types), $from and $to filter; $after and $before
// ([at, key]) seek; at most $limit entries.
MATCH (a:Asset {id: $id})
CALL (a) {
  UNWIND range(0, size(coalesce(a.statusAt, [])) - 1) AS i
  RETURN {at: a.statusAt[i], key: 's' + right('0000000000' + toString(i), 10), field: 'status',
          from: CASE WHEN i > 0 THEN a.statusTo[i - 1] END, to: a.statusTo[i], by: a.statusBy[i]} AS entry
  UNION ALL
  MATCH (a)-[r]-(b:Asset)
  UNWIND range(0, size(coalesce(r.activePeriods, [])) - 1) AS i
  RETURN {at: r.activePeriods[i], key: 'r' + r.id + ':' + right('0000000000' + toString(i), 10), field: type(r), added: i % 2 = 0,
          by: r.activeBy[i], relationship: r.id, outgoing: startNode(r) = a, other: b {.id, .displayName, .assetType}} AS entry
}
WITH entry
WHERE ($fields IS NULL OR entry.field IN $fields)
  AND ($from IS NULL OR entry.at >= $from) AND ($to IS NULL OR entry.at < $to)
  AND ($after IS NULL OR entry.at < $after[0] OR (entry.at = $after[0] AND entry.key < $after[1]))
  AND ($before IS NULL OR entry.at > $before[0] OR (entry.at = $before[0] AND entry.key > $before[1]))
RETURN entry
ORDER BY CASE WHEN $asc THEN entry.at END ASC, CASE WHEN $asc THEN entry.key END ASC,
         CASE WHEN $asc THEN null ELSE entry.at END DESC, CASE WHEN $asc THEN null ELSE entry.key END DESC
LIMIT $limit
