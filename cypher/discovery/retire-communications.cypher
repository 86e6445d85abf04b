// Retire step: the COMMUNICATES_WITH edges of hosts whose connections a run read in full that the
// run did not see again. Only this source's claim goes; an edge another source reports stays.
UNWIND $ids AS id
MATCH (:Asset {id: id})-[r:COMMUNICATES_WITH]-()
WHERE $source IN r.sources AND r.lastSeenAt < datetime($observedAt)
WITH DISTINCT r
SET r.sources = [s IN r.sources WHERE s <> $source]
WITH r WHERE size(r.sources) = 0
DELETE r
RETURN count(*) AS retired
