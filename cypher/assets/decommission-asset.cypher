// ACTIVE, STALE or INACTIVE to DECOMMISSIONED; its active edges become inactive, marked so that a
// reactivation restores exactly those.
MATCH (a:Asset {id: $id})
WHERE a.status <> 'DECOMMISSIONED'
SET a.status = 'DECOMMISSIONED', a.decommissionedAt = datetime()
WITH a
CALL (a) {
  MATCH (a)-[r]-(:Asset)
  WHERE r.active
  SET r.active = false, r.deactivatedBy = 'DECOMMISSION'
}
RETURN {{> assets/_asset-fields}} AS asset
