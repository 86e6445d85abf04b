// The distinct customAttributes keys of each of $types in the current data (schema introspection),
// in key order: one pass over the assets of those types.
MATCH (a:Asset)
WHERE a.assetType IN $types
UNWIND a.customAttributeKeys AS key
WITH DISTINCT a.assetType AS type, key
ORDER BY type, key
RETURN type, collect(key) AS keys
