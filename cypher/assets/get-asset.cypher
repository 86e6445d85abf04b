MATCH (a:Asset {id: $id})
RETURN {{> assets/_asset-fields}} AS asset
