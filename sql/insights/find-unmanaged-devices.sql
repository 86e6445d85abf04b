-- Insight feed unmanaged-devices. Assets that a network source (the network sources) reported within
-- the days asked days and that the latest read of no LDAP scope lists (see find-directory-not-seen.sql),
-- once at least one directory has been read. Only what a directory would hold: an asset that any
-- source types otherwise than the types a directory holds (a switch, a printer, a container) is left out. The
-- latest seen first; the row names the asset.
WITH latest AS (
  SELECT scope, max(last_seen_at) AS read_at FROM discovery_scope_members WHERE scope LIKE 'LDAP:%' GROUP BY scope
), members AS (
  SELECT DISTINCT m.asset_id FROM discovery_scope_members m JOIN latest l ON l.scope = m.scope AND m.last_seen_at = l.read_at
), seen AS (
  SELECT f.asset_id, max(f.observed_at) AS seen_at, jsonb_agg(DISTINCT f.source ORDER BY f.source) AS sources
  FROM asset_facts f
  WHERE f.source IN (SELECT jsonb_array_elements_text(CAST(:networkSources AS jsonb)))
  GROUP BY f.asset_id
  HAVING max(f.observed_at) >= now() - make_interval(days => CAST(:days AS integer))
)
SELECT ARRAY[CAST(s.asset_id AS text)] AS "assetIds",
       jsonb_build_object('lastSeenOnNetworkAt', s.seen_at, 'seenBy', s.sources, 'directories', (SELECT count(*) FROM latest)) AS evidence
FROM seen s
WHERE EXISTS (SELECT 1 FROM latest)
  AND NOT EXISTS (SELECT 1 FROM members m WHERE m.asset_id = s.asset_id)
  AND NOT EXISTS (
    SELECT 1 FROM asset_facts t
    WHERE t.asset_id = s.asset_id AND t.field = 'assetType'
      AND t.value #>> '{}' NOT IN (SELECT jsonb_array_elements_text(CAST(:directoryTypes AS jsonb))))
ORDER BY s.seen_at DESC, s.asset_id
LIMIT :limit
