// Which of these ids are assets (the retention sweep removes sub-records of the others).
MATCH (a:Asset)
WHERE a.id IN $ids
RETURN a.id AS id
