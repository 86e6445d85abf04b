-- Insight feed new-listening-services. One row per service and port it listens on, when the
-- service was first seen at or after the since parameter (NEW) or when fewer than uncommonBelow
-- assets listen on that protocol and port (UNCOMMON). NEW first, newest first; then the rarest.
WITH listening AS (
  SELECT s.asset_id, s.service_name, s.first_seen_at, s.last_seen_at,
         lower(p ->> 'protocol') AS protocol, CAST(p ->> 'port' AS integer) AS port,
         s.first_seen_at >= :since AS is_new
  FROM discovered_services s
  CROSS JOIN LATERAL jsonb_array_elements(s.listen_ports) AS p
), spread AS (
  SELECT protocol, port, count(DISTINCT asset_id) AS assets FROM listening GROUP BY protocol, port
)
SELECT ARRAY[CAST(l.asset_id AS text)] AS "assetIds",
       jsonb_build_object('serviceName', l.service_name, 'protocol', l.protocol, 'port', l.port,
                          'firstSeenAt', l.first_seen_at, 'lastSeenAt', l.last_seen_at, 'assetsListening', s.assets,
                          'reasons', to_jsonb(array_remove(ARRAY[CASE WHEN l.is_new THEN 'NEW' END,
                                                                 CASE WHEN s.assets < :uncommonBelow THEN 'UNCOMMON' END], NULL))) AS evidence
FROM listening l
JOIN spread s USING (protocol, port)
WHERE l.is_new OR s.assets < :uncommonBelow
ORDER BY l.is_new DESC, CASE WHEN l.is_new THEN l.first_seen_at END DESC, s.assets, l.port, l.protocol, l.asset_id, l.service_name
LIMIT :limit
