// The names of assets in id order, after $afterId: keyset pages read from the id constraint's index,
// for reconciling the copy of asset names kept in PostgreSQL.
MATCH (a:Asset)
WHERE a.id > $afterId
RETURN a.id AS assetId, a.displayName AS displayName, a.hostname AS hostname
ORDER BY a.id
LIMIT $limit
