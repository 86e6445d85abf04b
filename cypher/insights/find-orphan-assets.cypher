// Insight feed orphan-assets: per parent rule of spec 2.4 ($rules, one per child type), the
// assets of that type (but DECOMMISSIONED ones) with no active edge of the rule to an asset of an
// admitted type or category (the same test as assets/find-parent-edges).
UNWIND $rules AS rule
MATCH (a:Asset {assetType: rule.type})
WHERE a.status <> 'DECOMMISSIONED'
  AND NOT EXISTS {
    MATCH (a)-[r]-(p:Asset)
    WHERE type(r) IN rule.via AND r.active
      AND ((rule.direction = 'IN' AND startNode(r) = p) OR (rule.direction = 'OUT' AND startNode(r) = a))
      AND (p.assetType IN rule.parentKinds OR p.assetCategory IN rule.parentKinds)
  }
RETURN [a.id] AS assetIds, {expectedVia: rule.via, direction: rule.direction, expectedParent: rule.parentKinds} AS evidence
ORDER BY a.assetType, a.displayName, a.id
LIMIT $limit
