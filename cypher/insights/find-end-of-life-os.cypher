// Insight feed end-of-life-os: assets (but DECOMMISSIONED ones) whose "osName osVersion" is a
// release of the catalogue ($catalogue, each with its pattern) whose end of life is before today
// plus $withinDays; the longest past first. Both are custom attributes, which the node keeps as
// JSON text (compact, as JSON.stringify writes it): each value is read up to its closing quote.
MATCH (a:Asset)
WHERE 'osName' IN a.customAttributeKeys AND a.status <> 'DECOMMISSIONED'
WITH a, split(a.customAttributes, '"osName":"')[1] AS nameText, split(a.customAttributes, '"osVersion":"')[1] AS versionText
WITH a, split(nameText, '"')[0] AS osName, split(versionText, '"')[0] AS osVersion
WITH a, osName, osVersion, toLower(osName + ' ' + coalesce(osVersion, '')) AS os
UNWIND $catalogue AS release
WITH a, osName, osVersion, os, release
WHERE os =~ release.pattern AND date(release.eol) < date() + duration({days: $withinDays})
RETURN [a.id] AS assetIds,
       {reason: CASE WHEN date(release.eol) < date() THEN 'END_OF_LIFE' ELSE 'NEAR_END_OF_LIFE' END,
        product: release.product, cycle: release.cycle, endOfLife: release.eol,
        daysPastEndOfLife: duration.inDays(date(release.eol), date()).days,
        osName: osName, osVersion: osVersion, source: release.sourceUrl, catalogueDate: release.catalogueDate} AS evidence
ORDER BY release.eol, a.displayName, a.id
LIMIT $limit
