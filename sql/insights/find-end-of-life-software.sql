-- Insight feed end-of-life-software. Installed packages whose name is one of a catalogue release's
-- packages and whose version matches its pattern, when the release's end of life is before today
-- plus withinDays; the longest past first. The catalogue comes as one JSON parameter.
SELECT ARRAY[CAST(p.asset_id AS text)] AS "assetIds",
       jsonb_build_object('reason', CASE WHEN r.eol < current_date THEN 'END_OF_LIFE' ELSE 'NEAR_END_OF_LIFE' END,
                          'product', r.product, 'cycle', r.cycle, 'endOfLife', r.eol, 'daysPastEndOfLife', current_date - r.eol,
                          'packageName', p.package_name, 'version', p.version, 'source', r."sourceUrl", 'catalogueDate', r."catalogueDate") AS evidence
FROM jsonb_to_recordset(CAST(:catalogue AS jsonb))
       AS r(product text, cycle text, eol date, packages text[], pattern text, "sourceUrl" text, "catalogueDate" text)
JOIN software_packages p ON p.package_name = ANY (r.packages) AND p.version ~ r.pattern
WHERE r.eol < current_date + CAST(:withinDays AS integer)
ORDER BY r.eol, p.package_name, p.asset_id
LIMIT :limit
