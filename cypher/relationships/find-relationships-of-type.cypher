// A page of the relationships of one type ({{type}}, from the allow-list) in id order ({{dir}}),
// read from the type's id index: {{filters}} are fixed predicates from code, a keyset seek on
// r.id among them.
MATCH (s:Asset)-[r:{{type}}]->(t:Asset)
WHERE {{filters}}
RETURN {{> relationships/_relationship-row}} AS row
ORDER BY r.id {{dir}}
SKIP $skip
LIMIT $limit
