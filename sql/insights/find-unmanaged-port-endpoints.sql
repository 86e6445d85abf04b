-- Insight feed unmanaged-port-endpoints. Switch forwarding tables (FDB) are kept as the
-- connections they prove from a switch port to a known interface (interface_connections, FDB),
-- and as the MACs on access ports that no known interface has (fdb_unmatched_macs). This lists
-- the endpoints no discovery run ever scanned successfully (discovery_run_hosts), and the MACs
-- that still match no interface; the latest seen first. Assets named are the endpoint (when one
-- is known), then the switch.
SELECT "assetIds", evidence FROM (
  SELECT ARRAY[CAST(nic.asset_id AS text), CAST(port.asset_id AS text)] AS "assetIds",
         jsonb_build_object('switchPort', port.name, 'macAddress', nic.mac_address, 'interfaceName', nic.name,
                            'firstSeenAt', c.first_seen_at, 'lastSeenAt', c.last_seen_at) AS evidence,
         c.last_seen_at AS seen, nic.mac_address AS mac, CAST(c.id AS text) AS tie
  FROM interface_connections c
  JOIN network_interfaces port ON port.id = c.source_interface_id
  JOIN network_interfaces nic ON nic.id = c.target_interface_id
  WHERE c.discovered_via = 'FDB'
    AND NOT EXISTS (SELECT 1 FROM discovery_run_hosts h WHERE h.asset_id = nic.asset_id AND h.outcome = 'SUCCESS')
  UNION ALL
  SELECT ARRAY[CAST(u.switch_asset_id AS text)],
         jsonb_build_object('switchPort', u.port, 'macAddress', u.mac_address, 'interfaceName', NULL,
                            'firstSeenAt', u.first_seen_at, 'lastSeenAt', u.last_seen_at),
         u.last_seen_at, u.mac_address, u.port
  FROM fdb_unmatched_macs u
  WHERE NOT EXISTS (SELECT 1 FROM network_interfaces n WHERE n.mac_address = u.mac_address)
) AS found
ORDER BY seen DESC, mac, tie
LIMIT :limit
