// The distinct customAttributes keys of one type in the current data (schema introspection).
MATCH (a:Asset)
WHERE a.assetType = $type
UNWIND a.customAttributeKeys AS key
RETURN DISTINCT key
ORDER BY key
