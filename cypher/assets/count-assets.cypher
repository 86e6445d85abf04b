// The total behind find-assets, with the same {{filters}}.
MATCH (a:Asset)
WHERE {{filters}}
RETURN count(a) AS total
