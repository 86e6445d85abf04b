// ACTIVE, STALE or INACTIVE to DECOMMISSIONED; its active edges become inactive, marked so that a
// reactivation restores exactly those. The asset and each edge are changes of the feed.
{{> changes/_next-seq}}
MATCH (a:Asset {id: $id})
WHERE a.status <> 'DECOMMISSIONED'
SET a.statusAt = coalesce(a.statusAt, []) + datetime().epochMillis, a.statusTo = coalesce(a.statusTo, []) + 'DECOMMISSIONED', a.statusBy = coalesce(a.statusBy, []) + $actor
SET a.status = 'DECOMMISSIONED', a.decommissionedAt = datetime(), a.updatedAt = datetime(), a.changeKind = 'DECOMMISSIONED', a.changeSeq = txSeq * 1000000
WITH txSeq, a
CALL (txSeq, a) {
  MATCH (a)-[r]-(:Asset)
  WHERE r.active AND r.retiredAt IS NULL
  WITH txSeq, collect(r) AS edges
  UNWIND range(0, size(edges) - 1) AS i
  WITH txSeq, i, edges[i] AS r
  SET r.activePeriods = coalesce(r.activePeriods, []) + datetime().epochMillis, r.activeBy = coalesce(r.activeBy, []) + $actor
  SET r.active = false, r.deactivatedBy = 'DECOMMISSION', r.updatedAt = datetime(), r.changeKind = 'UPDATED', r.changeSeq = txSeq * 1000000 + 1 + i
}
RETURN {{> assets/_asset-fields}} AS asset
