// Keyset paging over assets in (displayName, id) order, for streamed exports: each call resumes
// after the last row of the previous one, reading the order from the displayName index.
MATCH (a:Asset)
WHERE {{filters}}
  AND (a.displayName > $afterName OR (a.displayName = $afterName AND a.id > $afterId))
RETURN a {.*} AS asset
ORDER BY a.displayName, a.id
LIMIT $limit
