// A relationship row as a list (cheaper to send than a map), datetimes as text.
[r.id, type(r), r.active, toString(r.firstSeenAt), toString(r.lastSeenAt), r.sources,
 s.id, s.displayName, s.assetType, s.assetCategory, t.id, t.displayName, t.assetType, t.assetCategory,
 toString(r.updatedAt), toString(r.retiredAt)]
