// The total behind find-asset-relationships.
MATCH (a:Asset {id: $assetId})-[r]-(o:Asset)
WITH r, startNode(r) AS s, endNode(r) AS t
WHERE {{filters}}
RETURN count(r) AS total
