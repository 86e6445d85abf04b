-- Insight feed unmanaged-port-endpoints. Switch forwarding tables (FDB) are kept as the
-- connections they prove from a switch port to a known interface (interface_connections, FDB),
-- so this lists those whose endpoint no discovery run ever scanned successfully
-- (discovery_run_hosts); the latest seen first. Assets named are the endpoint, then the switch.
SELECT ARRAY[CAST(nic.asset_id AS text), CAST(port.asset_id AS text)] AS "assetIds",
       jsonb_build_object('switchPort', port.name, 'macAddress', nic.mac_address, 'interfaceName', nic.name,
                          'firstSeenAt', c.first_seen_at, 'lastSeenAt', c.last_seen_at) AS evidence
FROM interface_connections c
JOIN network_interfaces port ON port.id = c.source_interface_id
JOIN network_interfaces nic ON nic.id = c.target_interface_id
WHERE c.discovered_via = 'FDB'
  AND NOT EXISTS (SELECT 1 FROM discovery_run_hosts h WHERE h.asset_id = nic.asset_id AND h.outcome = 'SUCCESS')
ORDER BY c.last_seen_at DESC, nic.mac_address, c.id
LIMIT :limit
