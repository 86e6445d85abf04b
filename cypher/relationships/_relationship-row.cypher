// A relationship row as a list (cheaper to send than a map), datetimes as text. The ends'
// categories follow from their types (relationship-row.ts): two property reads fewer per row.
[r.id, type(r), r.active, toString(r.firstSeenAt), toString(r.lastSeenAt), r.sources,
 s.id, s.displayName, s.assetType, t.id, t.displayName, t.assetType,
 toString(r.updatedAt), toString(r.retiredAt)]
