// The number of assets in some categories, from the count store: {{counts}} is a sum of
// COUNT { MATCH (:CategoryLabel) }, one per category, written by code from the taxonomy.
RETURN {{counts}} AS total
