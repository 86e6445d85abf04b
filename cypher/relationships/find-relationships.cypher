// A page of relationships; {{filters}} is a conjunction of fixed predicates from code.
MATCH (s:Asset)-[r]->(t:Asset)
WHERE {{filters}}
RETURN r {.*, relationshipType: type(r)} AS rel,
       s {.id, .displayName, .assetType, .assetCategory} AS source,
       t {.id, .displayName, .assetType, .assetCategory} AS target
ORDER BY r.id
SKIP $skip
LIMIT $limit
