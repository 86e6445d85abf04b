// The ids of the assets that pass {{filters}} (the hosts whose sub-records a listing may show).
MATCH (a:Asset)
WHERE {{filters}}
RETURN a.id AS id
