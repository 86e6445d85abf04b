// Insight feed relationships-to-retired-assets: active relationships with an end that is
// DECOMMISSIONED or INACTIVE, found from the retired assets (few) rather than from every edge.
MATCH (x:Asset)
WHERE x.status IN ['DECOMMISSIONED', 'INACTIVE']
MATCH (x)-[r]-(:Asset)
WHERE r.active
WITH DISTINCT r
WITH r, startNode(r) AS s, endNode(r) AS t
RETURN [s.id, t.id] AS assetIds,
       {relationshipId: r.id, relationshipType: type(r), sourceStatus: s.status, targetStatus: t.status} AS evidence
ORDER BY type(r), r.id
LIMIT $limit
