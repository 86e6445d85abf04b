// The reference fields of several assets (parents of a page, nodes of a topology).
MATCH (a:Asset)
WHERE a.id IN $ids
RETURN a {.id, .displayName, .assetType, .assetCategory, .status} AS asset
