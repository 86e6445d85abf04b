// The graph around one asset in one statement: a breadth-first walk over active edges (ANY
// SHORTEST emits the nearest assets first, so LIMIT stops the walk early and keeps the nearest),
// then the active edges between the assets it reached. The root is kept out of what the walk
// reaches: a path that loops back to it would list it (and its edges) a second time. {{depth}} is
// the validated hop bound (hop bounds cannot be parameters); {{active}} tells an active edge (now,
// or at $at for an as-of walk: inventory/status-log.ts), {{nodeStatus}} and {{rootStatus}} an
// asset's status (now, or then); the walk reads one asset more than the $cap wanted, to tell that
// the cap cut it.
MATCH (root:Asset {id: $id})
OPTIONAL CALL (root) {
  MATCH p = ANY SHORTEST (root)-[r WHERE {{active}}]-{1,{{depth}}}(b:Asset WHERE b <> root)
  RETURN b, length(p) AS depth
  LIMIT $cap + 1
}
WITH root, collect(b {.id, .displayName, .assetType, .assetCategory, status: {{nodeStatus}}, depth: depth}) AS nodes, collect(b) AS reached
WITH root, nodes[0..$cap] AS nodes, [root] + reached[0..$cap] AS members, size(nodes) > $cap AS truncated
CALL (members) {
  UNWIND members AS a
  MATCH (a)-[r]->(b:Asset)
  WHERE {{active}} AND b IN members
  RETURN collect(r {.id, type: type(r), source: a.id, target: b.id}) AS edges
}
RETURN root {.id, .displayName, .assetType, .assetCategory, status: {{rootStatus}}, depth: 0} AS root, nodes, edges, truncated
