-- Insight feed "top talkers that are unknown endpoints": the addresses that moved the most bytes
-- in the window [from, to) (sent plus received, from the 5-minute endpoint rollup: 90 days kept,
-- fine enough for a feed) and that no asset holds: neither an address of a discovered interface
-- (network_interfaces.ip_addresses, CIDR text) nor an ipAddresses fact of an asset (asset_facts).
-- Bytes and packets are estimates (sampling applied); flows counts flow records on either side.
-- Parameters (knex named bindings): from, to (timestamps), limit. Rows: address, bytes, packets, flows, and for the
-- insight registry "assetIds" (none: the address is unknown) and evidence (the same figures).
-- No question mark, double colon or colon before a word anywhere (comments too): knex reads them as bindings.
WITH talk AS (
  SELECT address, sent_bytes + received_bytes AS bytes, sent_packets + received_packets AS packets, sent_flows + received_flows AS flows
  FROM flow_endpoint_5m WHERE bucket >= CAST(:from AS timestamptz) AND bucket < CAST(:to AS timestamptz)
),
known AS (
  SELECT host(CAST(a AS inet)) AS address
  FROM network_interfaces, unnest(ip_addresses) AS a
  WHERE a ~ '^[0-9A-Fa-f:.]+(/[0-9]{1,3}){0,1}$'
  UNION
  SELECT host(CAST(a AS inet))
  FROM asset_facts, jsonb_array_elements_text(CASE WHEN jsonb_typeof(value) = 'array' THEN value ELSE CAST('[]' AS jsonb) END) AS a
  WHERE field = 'ipAddresses' AND a ~ '^[0-9A-Fa-f:.]+(/[0-9]{1,3}){0,1}$'
),
ranked AS (
  SELECT host(address) AS address, CAST(sum(bytes) AS bigint) AS bytes, CAST(sum(packets) AS bigint) AS packets, CAST(sum(flows) AS bigint) AS flows
  FROM talk
  WHERE host(address) NOT IN (SELECT address FROM known WHERE address IS NOT NULL)
  GROUP BY host(address)
)
SELECT address, bytes, packets, flows,
       CAST(ARRAY[] AS text[]) AS "assetIds",
       jsonb_build_object('address', address, 'bytes', bytes, 'packets', packets, 'flows', flows) AS evidence
FROM ranked
ORDER BY bytes DESC, address
LIMIT CAST(:limit AS integer)
