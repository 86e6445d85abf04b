// Where the history kept in the graph starts for what was written before it was kept
// (inventory/status-log.ts): each asset's status and each active edge, as of the first start that
// keeps it. Once done, a HistoryStart node says so, so that later starts scan nothing (an
// interrupted first pass is taken up again: it only fills what has no log yet).
OPTIONAL MATCH (started:HistoryStart)
WITH started WHERE started IS NULL
MATCH (a:Asset) WHERE a.statusAt IS NULL
CALL (a) { SET a.statusAt = [timestamp()], a.statusTo = [a.status], a.statusBy = ['SYSTEM:history'] } IN TRANSACTIONS OF 10000 ROWS;
OPTIONAL MATCH (started:HistoryStart)
WITH started WHERE started IS NULL
MATCH ()-[r]->() WHERE r.activePeriods IS NULL AND r.active = true
CALL (r) { SET r.activePeriods = [timestamp()], r.activeBy = ['SYSTEM:history'] } IN TRANSACTIONS OF 10000 ROWS;
MERGE (:HistoryStart {name: 'history'});
