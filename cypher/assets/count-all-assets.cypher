// The number of assets, read from the count store (no scan), for listings without a filter; every
// asset has a display name, so this is also the total behind the unfiltered page.
MATCH (a:Asset)
RETURN count(a) AS total
