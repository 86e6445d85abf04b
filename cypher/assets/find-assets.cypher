// A page of assets with each one's parent (spec 2.4), in one statement. {{filters}} is a
// conjunction of fixed predicates picked by the read model (each with its own parameter, a keyset
// seek among them) and {{order}} allow-listed properties and directions: both come from code,
// never from the request. $rules[$ruleOf[type]] is the rule of each type that has a parent; the
// parent is the first active edge of the rule (in the rule's order of edge types) to an asset of
// an admitted type or category. {{total}} is the listing's total where the count store holds it (COUNT
// subqueries written by code from the taxonomy), else null: one round trip for page and total.
MATCH (a:Asset)
WHERE {{filters}}
WITH a
ORDER BY {{order}}
SKIP $skip
LIMIT $limit
CALL (a) {
  WITH a, $rules[$ruleOf[a.assetType]] AS rule
  OPTIONAL MATCH (a)-[r]-(p:Asset)
  WHERE rule IS NOT NULL AND type(r) IN rule.via AND r.active
    AND ((rule.direction = 'IN' AND startNode(r) = p) OR (rule.direction = 'OUT' AND startNode(r) = a))
    AND (p.assetType IN rule.parentKinds OR p.assetCategory IN rule.parentKinds)
  WITH r, p, rule
  ORDER BY [i IN range(0, size(coalesce(rule.via, [])) - 1) WHERE rule.via[i] = type(r)][0], p.id
  LIMIT 1
  RETURN CASE WHEN p IS NULL THEN null ELSE p {.id, .displayName, .assetType, .assetCategory, via: type(r)} END AS parent
}
RETURN {{> assets/_asset-fields}} AS asset, parent, {{total}} AS total
