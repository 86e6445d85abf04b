// A page of the relationships of one type ({{type}}, from the allow-list) in id order ({{dir}}),
// read from the type's id index: {{filters}} are fixed predicates from code, a keyset seek on
// r.id among them. Rows are lists (cheaper to send than maps), datetimes as text.
MATCH (s:Asset)-[r:{{type}}]->(t:Asset)
WHERE {{filters}}
RETURN [r.id, type(r), r.active, toString(r.firstSeenAt), toString(r.lastSeenAt), r.sources,
        s.id, s.displayName, s.assetType, s.assetCategory, t.id, t.displayName, t.assetType, t.assetCategory,
        toString(r.updatedAt), toString(r.retiredAt)] AS row
ORDER BY r.id {{dir}}
SKIP $skip
LIMIT $limit
