-- Insight feed directory-not-seen. A directory's computers are the members of its LDAP scope
-- (discovery_scope_members, scope LDAP:<address>:<port>:<base DN>) stamped by its latest read:
-- LDAP loads only complete reads, so those are exactly what the directory holds now. A computer is
-- listed when no network source (the network sources) has reported a fact of it for the days asked days, or
-- ever; never seen first, then the longest unseen. The row names the computer's asset.
WITH latest AS (
  SELECT scope, max(last_seen_at) AS read_at FROM discovery_scope_members WHERE scope LIKE 'LDAP:%' GROUP BY scope
), members AS (
  SELECT m.asset_id, min(m.scope) AS scope FROM discovery_scope_members m JOIN latest l ON l.scope = m.scope AND m.last_seen_at = l.read_at GROUP BY m.asset_id
), seen AS (
  SELECT f.asset_id, max(f.observed_at) AS seen_at
  FROM asset_facts f JOIN members m ON m.asset_id = f.asset_id
  WHERE f.source IN (SELECT jsonb_array_elements_text(CAST(:networkSources AS jsonb)))
  GROUP BY f.asset_id
)
SELECT ARRAY[CAST(m.asset_id AS text)] AS "assetIds",
       jsonb_build_object('directory', m.scope, 'directoryDn', dn.value, 'ouPath', ou.value, 'lastLogonAt', logon.value,
                          'lastSeenOnNetworkAt', s.seen_at, 'daysUnseen', CAST(floor(extract(epoch FROM now() - s.seen_at) / 86400) AS integer)) AS evidence
FROM members m
LEFT JOIN seen s ON s.asset_id = m.asset_id
LEFT JOIN asset_facts dn ON dn.asset_id = m.asset_id AND dn.source = 'ldap' AND dn.field = 'custom.directoryDn'
LEFT JOIN asset_facts ou ON ou.asset_id = m.asset_id AND ou.source = 'ldap' AND ou.field = 'custom.ouPath'
LEFT JOIN asset_facts logon ON logon.asset_id = m.asset_id AND logon.source = 'ldap' AND logon.field = 'custom.lastLogonAt'
WHERE s.seen_at IS NULL OR s.seen_at < now() - make_interval(days => CAST(:days AS integer))
ORDER BY s.seen_at ASC NULLS FIRST, m.asset_id
LIMIT :limit
