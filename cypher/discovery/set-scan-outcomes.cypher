// The scan fields of spec 2.2/3.3 on each asset a run targeted: outcome and time; the failure
// counter grows with each FAILED run and is 0 after any successful one.
UNWIND $rows AS row
MATCH (a:Asset {id: row.id})
SET a.lastScanOutcome = row.outcome,
    a.lastScanAt = datetime($at),
    a.consecutiveScanFailures = CASE WHEN row.outcome = 'FAILED' THEN coalesce(a.consecutiveScanFailures, 0) + 1 ELSE 0 END
RETURN count(a) AS updated
