// Retire step of a connector scope read in full: the edges of the given types from or to its
// assets that this source did not see again (a VM moved to another host, a datastore unmounted).
// Only this source's claim goes; an edge no source reports any more is retired, as in
// retire-communications.
{{> changes/_next-seq}}
UNWIND $ids AS id
MATCH (:Asset {id: id})-[r]-()
WHERE type(r) IN $types AND $source IN r.sources AND r.lastSeenAt < datetime($observedAt) AND r.retiredAt IS NULL
WITH txSeq, collect(DISTINCT r) AS edges
UNWIND range(0, size(edges) - 1) AS i
WITH txSeq, i, edges[i] AS r
SET r.sources = [s IN r.sources WHERE s <> $source]
WITH txSeq, i, r WHERE size(r.sources) = 0
SET r.activePeriods = CASE WHEN r.active THEN coalesce(r.activePeriods, []) + datetime().epochMillis ELSE r.activePeriods END,
    r.activeBy = CASE WHEN r.active THEN coalesce(r.activeBy, []) + ('SOURCE:' + $source) ELSE r.activeBy END
SET r.active = false, r.retiredAt = datetime(), r.updatedAt = datetime(), r.changeKind = 'RETIRED', r.changeSeq = txSeq * 1000000 + i
RETURN count(*) AS retired
