// Retire step of the flow-inventory job: the flow claim on COMMUNICATES_WITH edges whose
// conversation no window has shown since $before (the edge's last flow minute; an edge merged
// but never given its evidence counts from when it was merged), at most $limit edges a
// statement. The window's traffic goes with the claim; flowFirstSeenAt and flowLastSeenAt stay
// as history. An edge no source reports any more is retired: inactive, with retiredAt, left for
// the change feed (GET /changes) until the retention sweep purges it, and left out of every
// list. An edge the SSH socket table also reports keeps that claim and stays.
{{> changes/_next-seq}}
MATCH ()-[r:COMMUNICATES_WITH]->()
WHERE $source IN r.sources AND r.retiredAt IS NULL AND coalesce(r.flowLastSeenAt, r.lastSeenAt) < datetime($before)
WITH txSeq, r LIMIT $limit
WITH txSeq, collect(r) AS edges
CALL (txSeq, edges) {
  UNWIND range(0, size(edges) - 1) AS i
  WITH i, edges[i] AS r
  SET r.sources = [s IN r.sources WHERE s <> $source]
  REMOVE r.flowBytes, r.flowPackets, r.flowFlows, r.flowWindowStart, r.flowWindowEnd
  WITH i, r WHERE size(r.sources) = 0
  SET r.activePeriods = CASE WHEN r.active THEN coalesce(r.activePeriods, []) + datetime().epochMillis ELSE r.activePeriods END,
    r.activeBy = CASE WHEN r.active THEN coalesce(r.activeBy, []) + ('SOURCE:' + $source) ELSE r.activeBy END
  SET r.active = false, r.retiredAt = datetime(), r.updatedAt = datetime(), r.changeKind = 'RETIRED', r.changeSeq = txSeq * 1000000 + i
}
RETURN size(edges) AS released
