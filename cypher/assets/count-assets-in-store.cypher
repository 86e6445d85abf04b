// The number of assets of a listing without a filter, or with categories alone, from the count
// store (no scan): {{total}} is COUNT { MATCH (:Asset) }, or a sum of COUNT { MATCH (:CategoryLabel) },
// written by code from the taxonomy.
RETURN {{total}} AS total
