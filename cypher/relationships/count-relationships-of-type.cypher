// The number of relationships of one type ({{type}}) that pass {{filters}} (fixed predicates from
// code), for totals that the count store cannot give.
MATCH (s:Asset)-[r:{{type}}]->(t:Asset)
WHERE {{filters}}
RETURN count(r) AS total
