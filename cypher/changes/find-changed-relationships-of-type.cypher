// The relationships of one type ({{type}}, from the allow-list) changed after a point of the feed,
// in change order, retired ones included, read from the type's changeSeq index.
MATCH (s:Asset)-[r:{{type}}]->(t:Asset)
WHERE r.changeSeq > $after
RETURN {{> relationships/_relationship-row}} AS row, r.changeSeq AS seq, r.changeKind AS kind
ORDER BY r.changeSeq
LIMIT $limit
