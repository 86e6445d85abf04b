// Insight feed scan-failures: assets whose last $failures scans or more failed in a row
// (FAILING), and scannable assets that no run ever targeted (NEVER_SCANNED); FAILING first, most
// failures first, then the longest known.
MATCH (a:Asset)
WHERE a.status <> 'DECOMMISSIONED'
  AND (coalesce(a.consecutiveScanFailures, 0) >= $failures
       OR (a.lastScanOutcome IS NULL AND a.assetCategory IN ['HOST', 'NETWORK_DEVICE', 'PRINTER', 'IOT_DEVICE', 'ENDPOINT']))
WITH a, CASE WHEN coalesce(a.consecutiveScanFailures, 0) >= $failures THEN 'FAILING' ELSE 'NEVER_SCANNED' END AS reason
RETURN [a.id] AS assetIds,
       {reason: reason, lastScanOutcome: a.lastScanOutcome, lastScanAt: toString(a.lastScanAt),
        consecutiveScanFailures: coalesce(a.consecutiveScanFailures, 0), lastSeenAt: toString(a.lastSeenAt)} AS evidence
ORDER BY reason, coalesce(a.consecutiveScanFailures, 0) DESC, a.firstSeenAt, a.id
LIMIT $limit
