-- Insight feed ssh-host-keys. CHANGED, per address whose pinned key (ssh_host_keys) a later scan
-- found replaced (discovery refused to log in, error HOST_KEY_CHANGED, after the key was pinned),
-- the latest first; then SHARED, each fingerprint that several addresses present, the most shared
-- first. Assets named are those that hold the addresses (identity rule IP_ADDRESS).
WITH changed AS (
  SELECT DISTINCT ON (e.address) 'CHANGED' AS reason, k.key_type, k.fingerprint, ARRAY[CAST(e.address AS text)] AS addresses,
         coalesce(r.finished_at, r.started_at, r.queued_at) AS detected_at, e.message AS detail
  FROM discovery_run_errors e
  JOIN discovery_runs r ON r.id = e.run_id
  JOIN ssh_host_keys k ON k.address = e.address
  WHERE e.code = 'HOST_KEY_CHANGED' AND coalesce(r.finished_at, r.started_at, r.queued_at) >= k.first_seen_at
  ORDER BY e.address, detected_at DESC, k.port
), shared AS (
  SELECT 'SHARED' AS reason, min(key_type) AS key_type, fingerprint,
         array_agg(DISTINCT CAST(address AS text) ORDER BY CAST(address AS text)) AS addresses,
         CAST(NULL AS timestamptz) AS detected_at, CAST(NULL AS text) AS detail
  FROM ssh_host_keys
  GROUP BY fingerprint
  HAVING count(DISTINCT address) > 1
), findings AS (
  SELECT * FROM changed UNION ALL SELECT * FROM shared
)
SELECT ARRAY(SELECT CAST(i.asset_id AS text)
             FROM unnest(f.addresses) WITH ORDINALITY AS a(address, n)
             JOIN asset_identifiers i ON i.rule = 'IP_ADDRESS' AND i.value = a.address
             ORDER BY a.n) AS "assetIds",
       jsonb_build_object('reason', f.reason, 'keyType', f.key_type, 'fingerprint', f.fingerprint, 'addresses', to_jsonb(f.addresses),
                          'detectedAt', f.detected_at, 'detail', f.detail) AS evidence
FROM findings f
ORDER BY f.reason, f.detected_at DESC, cardinality(f.addresses) DESC, f.fingerprint, f.addresses
LIMIT :limit
