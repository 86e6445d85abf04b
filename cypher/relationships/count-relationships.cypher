MATCH (s:Asset)-[r]->(t:Asset)
WHERE {{filters}}
RETURN count(r) AS total
