// STALE, INACTIVE or DECOMMISSIONED to ACTIVE: failure counter to 0, staleSince cleared, and the
// edges that its decommissioning made inactive active again (unless the other end is decommissioned).
MATCH (a:Asset {id: $id})
WHERE a.status IN ['STALE', 'INACTIVE', 'DECOMMISSIONED']
SET a.status = 'ACTIVE', a.consecutiveScanFailures = 0, a.staleSince = null, a.decommissionedAt = null
WITH a
CALL (a) {
  MATCH (a)-[r]-(o:Asset)
  WHERE r.deactivatedBy = 'DECOMMISSION' AND o.status <> 'DECOMMISSIONED'
  SET r.active = true, r.deactivatedBy = null
}
RETURN {{> assets/_asset-fields}} AS asset
