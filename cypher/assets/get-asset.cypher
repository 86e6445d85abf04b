MATCH (a:Asset {id: $id})
RETURN a {.*} AS asset
