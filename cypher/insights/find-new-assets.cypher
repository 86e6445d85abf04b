// Insight feed new-assets: assets first seen at or after $since, the newest first.
MATCH (a:Asset)
WHERE a.firstSeenAt >= datetime($since)
RETURN [a.id] AS assetIds, {firstSeenAt: toString(a.firstSeenAt), status: a.status, sources: coalesce(a.sources, [])} AS evidence
ORDER BY a.firstSeenAt DESC, a.id
LIMIT $limit
