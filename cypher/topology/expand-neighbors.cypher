// One hop of the topology walk: the active edges of the frontier and the assets at their other
// ends. The walk runs hop by hop in the service, so its cost grows with the nodes it reaches,
// not with the number of paths.
MATCH (a:Asset)-[r]-(b:Asset)
WHERE a.id IN $frontier AND r.active
RETURN r.id AS id, type(r) AS type, startNode(r).id AS source, endNode(r).id AS target,
       b {.id, .displayName, .assetType, .assetCategory, .status} AS node
LIMIT $limit
