// Insight feed duplicate-candidates: groups of assets (but DECOMMISSIONED ones) that share a
// serial number, a MAC address or a host name (case-insensitive); the largest groups first.
MATCH (a:Asset)
WHERE a.status <> 'DECOMMISSIONED'
UNWIND [k IN [['SERIAL_NUMBER', toUpper(trim(a.serialNumber))], ['HOSTNAME', toLower(trim(a.hostname))]]
          + [m IN coalesce(a.macAddresses, []) | ['MAC_ADDRESS', replace(toLower(trim(m)), '-', ':')]]
        WHERE k[1] IS NOT NULL AND k[1] <> ''] AS key
WITH DISTINCT key, a
ORDER BY a.id
WITH key, collect(a.id) AS ids
WHERE size(ids) > 1
RETURN ids AS assetIds, {sharedBy: key[0], value: key[1], assets: size(ids)} AS evidence
ORDER BY size(ids) DESC, key[0], key[1]
LIMIT $limit
