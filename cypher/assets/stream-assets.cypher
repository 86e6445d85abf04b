// Every asset that passes {{filters}} (fixed predicates from code), in name order, for the streamed
// export: the displayName index gives the order, ties are put in id order as they come.
MATCH (a:Asset)
WHERE {{filters}}
RETURN {{> assets/_asset-fields}} AS asset
ORDER BY a.displayName, a.id
