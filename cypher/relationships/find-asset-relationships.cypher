// A page of the relationships of one asset (either end), from the asset's own edges; {{filters}}
// are fixed predicates from code.
MATCH (a:Asset {id: $assetId})-[r]-(o:Asset)
WITH r, startNode(r) AS s, endNode(r) AS t
WHERE {{filters}}
RETURN {{> relationships/_relationship-row}} AS row
ORDER BY type(r), r.id
SKIP $skip
LIMIT $limit
