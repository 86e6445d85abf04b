// Insight feed stale-assets: assets (but DECOMMISSIONED ones) not observed for $days days, the
// longest unseen first.
MATCH (a:Asset)
WHERE a.lastSeenAt < datetime() - duration({days: $days}) AND a.status <> 'DECOMMISSIONED'
RETURN [a.id] AS assetIds,
       {status: a.status, lastSeenAt: toString(a.lastSeenAt), staleSince: toString(a.staleSince),
        daysUnseen: duration.inDays(a.lastSeenAt, datetime()).days} AS evidence
ORDER BY a.lastSeenAt, a.id
LIMIT $limit
