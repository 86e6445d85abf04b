// The flow evidence of COMMUNICATES_WITH edges that the flow-inventory job merged (source `flow`):
// the traffic of its last window (replaced each run), and the first and last minute any window saw
// flows between the two assets (widened, never narrowed).
UNWIND $rows AS row
MATCH (:Asset {id: row.source})-[r:COMMUNICATES_WITH]->(:Asset {id: row.target})
SET r.flowBytes = row.bytes,
    r.flowPackets = row.packets,
    r.flowFlows = row.flows,
    r.flowWindowStart = datetime($from),
    r.flowWindowEnd = datetime($to),
    r.flowFirstSeenAt = CASE WHEN r.flowFirstSeenAt IS NULL OR r.flowFirstSeenAt > datetime(row.firstSeenAt) THEN datetime(row.firstSeenAt) ELSE r.flowFirstSeenAt END,
    r.flowLastSeenAt = CASE WHEN r.flowLastSeenAt IS NULL OR r.flowLastSeenAt < datetime(row.lastSeenAt) THEN datetime(row.lastSeenAt) ELSE r.flowLastSeenAt END
RETURN count(r) AS updated
