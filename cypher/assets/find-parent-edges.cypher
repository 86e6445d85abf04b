// Parent resolution for a page (spec 2.4), all rows at once: per asset, the first active edge of
// its rule (in the rule's order of edge types) to an asset of an admitted type or category.
// {{active}} tells an active edge (now, or at $at: inventory/status-log.ts).
UNWIND $rules AS rule
MATCH (a:Asset {id: rule.id})
CALL (a, rule) {
  OPTIONAL MATCH (a)-[r]-(p:Asset)
  WHERE type(r) IN rule.via AND {{active}}
    AND ((rule.direction = 'IN' AND startNode(r) = p) OR (rule.direction = 'OUT' AND startNode(r) = a))
    AND (p.assetType IN rule.parentKinds OR p.assetCategory IN rule.parentKinds)
  WITH r, p
  ORDER BY [i IN range(0, size(rule.via) - 1) WHERE rule.via[i] = type(r)][0], p.id
  LIMIT 1
  RETURN p.id AS parentId, type(r) AS via
}
RETURN rule.id AS id, parentId, via
