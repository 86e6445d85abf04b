// The assets at a site (the flows filter `site`: flows with an end at one of them), at most $limit.
MATCH (a:Asset)
WHERE a.site = $site AND a.status <> 'DECOMMISSIONED'
RETURN a.id AS id
ORDER BY id
LIMIT $limit
