// The number of relationships of each type, and of inactive ones, without a scan: {{counts}} are
// two lists of COUNT { } subqueries written by code, one per type (the count store, and the active
// index of each type), named totals and inactive.
RETURN {{counts}}
