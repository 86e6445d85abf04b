// The assets a search finds (GET /search): those whose searchText holds $q (the text index behind the
// list's q), whose serial number starts with $serial (its range index), and those whose address or
// MAC the identity index found ($ids). Each branch stops at $cap matches; grouped by type, each
// group's first $limit by name, those whose name starts with $q first.
CALL {
  MATCH (a:Asset) WHERE a.searchText CONTAINS $q RETURN a LIMIT $cap
  UNION
  MATCH (a:Asset) WHERE a.serialNumber STARTS WITH $serial RETURN a LIMIT $cap
  UNION
  MATCH (a:Asset) WHERE a.id IN $ids RETURN a
}
WITH a WHERE a.displayName IS NOT NULL
WITH a ORDER BY CASE WHEN toLower(a.displayName) STARTS WITH $q THEN 0 ELSE 1 END, a.displayName, a.id
WITH a.assetType AS assetType, count(a) AS total, collect(a)[..$limit] AS found
RETURN assetType, total, [x IN found | x {.id, .displayName, .serialNumber, .fqdn, .hostname, .ipAddresses, .macAddresses}] AS hits
ORDER BY total DESC, assetType
