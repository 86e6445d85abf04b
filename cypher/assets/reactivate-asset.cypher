// STALE, INACTIVE or DECOMMISSIONED to ACTIVE: failure counter to 0, staleSince cleared, and the
// edges that its decommissioning made inactive active again (unless the other end is
// decommissioned). The asset and each edge are changes of the feed.
{{> changes/_next-seq}}
MATCH (a:Asset {id: $id})
WHERE a.status IN ['STALE', 'INACTIVE', 'DECOMMISSIONED']
SET a.statusAt = coalesce(a.statusAt, []) + datetime().epochMillis, a.statusTo = coalesce(a.statusTo, []) + 'ACTIVE', a.statusBy = coalesce(a.statusBy, []) + $actor
SET a.status = 'ACTIVE', a.consecutiveScanFailures = 0, a.staleSince = null, a.decommissionedAt = null,
    a.updatedAt = datetime(), a.changeKind = 'REACTIVATED', a.changeSeq = txSeq * 1000000
WITH txSeq, a
CALL (txSeq, a) {
  MATCH (a)-[r]-(o:Asset)
  WHERE r.deactivatedBy = 'DECOMMISSION' AND o.status <> 'DECOMMISSIONED' AND r.retiredAt IS NULL
  WITH txSeq, collect(r) AS edges
  UNWIND range(0, size(edges) - 1) AS i
  WITH txSeq, i, edges[i] AS r
  SET r.activePeriods = coalesce(r.activePeriods, []) + datetime().epochMillis, r.activeBy = coalesce(r.activeBy, []) + $actor
  SET r.active = true, r.deactivatedBy = null, r.updatedAt = datetime(), r.changeKind = 'UPDATED', r.changeSeq = txSeq * 1000000 + 1 + i
}
RETURN {{> assets/_asset-fields}} AS asset
