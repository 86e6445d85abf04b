// The number of relationships of each type, and of inactive ones, without a scan: {{totals}} and
// {{inactive}} are lists of COUNT { } subqueries written by code, one per type (the count store,
// and the active index of each type).
RETURN {{totals}} AS totals, {{inactive}} AS inactive
