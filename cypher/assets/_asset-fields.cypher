// The fields of an asset as statements return it: every property but the search helpers, with
// datetimes as text (far cheaper for the driver to decode than temporal values).
a {.*, searchText: null, customAttributeKeys: null, firstSeenAt: toString(a.firstSeenAt), lastSeenAt: toString(a.lastSeenAt),
   lastScanAt: toString(a.lastScanAt), staleSince: toString(a.staleSince), decommissionedAt: toString(a.decommissionedAt),
   updatedAt: toString(a.updatedAt)}
