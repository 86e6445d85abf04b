// The assets changed after a point of the feed, in change order, each with its latest change.
MATCH (a:Asset)
WHERE a.changeSeq > $after
RETURN {{> assets/_asset-fields}} AS asset, a.changeSeq AS seq, a.changeKind AS kind
ORDER BY a.changeSeq
LIMIT $limit
