// Where the history kept in the graph starts for what was written before it was kept
// (inventory/status-log.ts): each asset's status and each active edge, as of the first start that
// keeps it. Only what has no log yet: later starts find nothing to do.
MATCH (a:Asset) WHERE a.statusAt IS NULL
CALL (a) { SET a.statusAt = [timestamp()], a.statusTo = [a.status], a.statusBy = ['SYSTEM:history'] } IN TRANSACTIONS OF 10000 ROWS;
MATCH ()-[r]->() WHERE r.activePeriods IS NULL AND r.active = true
CALL (r) { SET r.activePeriods = [timestamp()], r.activeBy = ['SYSTEM:history'] } IN TRANSACTIONS OF 10000 ROWS;
