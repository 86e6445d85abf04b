// What a sub-record kind declares (one file per kind beside this one, listed in sub-record-kinds.ts):
// its table and natural key, its columns with their API names and where each shows, what q
// searches, how its synthesized rows are ordered by name and whether they list connections, its
// retention, its export and how an API row becomes a table row. The store, the
// synthesized asset rows, the schema keys, the retention sweep and the exports derive their SQL
// from it once, when they load.

import type { TypeDefinition } from './asset-type-definition.js';

/**
 * How a column's value is read and written: `text` is untrusted device text (neutralised in CSV);
 * `mac` and `uuid` are normalised by the service; `number` is a bigint or decimal, read as float8;
 * `date` reads as YYYY-MM-DD, `timestamp` as ISO 8601 in UTC; `text[]` is one CSV cell of items
 * joined by ';'; `ports` is a JSON array of { protocol, port }, `tcp/22;udp/123` in a CSV cell.
 */
export type ColumnType = 'text' | 'mac' | 'uuid' | 'integer' | 'number' | 'date' | 'timestamp' | 'text[]' | 'ports';

export interface SubRecordColumn {
  /** The column of the table. */
  name: string;
  /** Its name in the API (the import bundle, the export headers and JSON keys). */
  api: string;
  type: ColumnType;
  /** Kept by the store, never written from a row: the id and the seen and change times. */
  managed?: true;
  /** One of the synthesized row's customAttributes, under the column's name (docs/interface.md §2.11). */
  attribute?: true;
  /** Listed by the schema among the type's customAttributeKeys (docs/interface.md §2.7). */
  schemaKey?: true;
  /** Besides the name, what q matches (docs/interface.md §4.1). */
  searched?: true;
  /** Also this field of the synthesized row (an attribute column; a list field holds its value as a list of one). */
  shownAs?: 'vendor' | 'model' | 'macAddresses' | 'ipAddresses';
}

/** A column of the synthesized listing's order that is not one of the API's (kept on the row for the order's index). */
export interface OrderColumn {
  name: string;
  type: 'text' | 'uuid' | 'integer';
}

export interface SubRecordKind<Row = never, T extends string = string, D extends string = string> {
  /** The synthesized asset type its rows are listed as. */
  assetType: T;
  /** That type's entry in the asset taxonomy (docs/interface.md §2.3, 2.4, 2.7): category, label, parent rule, type fields. */
  type: TypeDefinition;
  /** Its export: /api/v1/export/{dataset}.{csv,json}. */
  dataset: D;
  table: string;
  /** With asset_id, the natural key its rows are upserted by; null: an asset's rows are replaced whole at each read. */
  key: string | null;
  /** The column that names a row (its displayName). */
  name: string;
  /** In the order of the synthesized row's customAttributes and of the export. */
  columns: SubRecordColumn[];
  /** The synthesized listing's displayName order where it is not by name: these columns ahead of the name and id. */
  nameOrder?: OrderColumn[];
  /** Its rows are the ends of interface connections: the synthesized row lists the other ends (connectedTo, docs/interface.md §2.12). */
  connected?: true;
  firstSeen: string;
  lastSeen: string;
  /** updated_at moves only when a written value changes; the export then takes updatedAfter. */
  changesTracked: boolean;
  /** Rows not observed for service.retention.sub-asset-days are removed; the key of the count in the sweep's summary. */
  retention?: { removedKey: string };
  export: {
    /** The export's columns after the asset's, by API name. */
    columns: string[];
    /** Within an asset, by API name. */
    order: string[];
    /** Filters that compare a column (by API name) for equality. */
    equals: string[];
  };
  /** The table row of an API row, as the store writes it. */
  toRow(row: Row, at: { source: string; observedAt: Date }): Record<string, unknown>;
}

/** A kind with its literal type and dataset names kept, for the unions derived from the registry. */
export function subRecordKind<Row, const T extends string, const D extends string>(kind: SubRecordKind<Row, T, D>): SubRecordKind<Row, T, D> {
  return kind;
}

export function columnOf(kind: SubRecordKind<never>, api: string): SubRecordColumn {
  const column = kind.columns.find((c) => c.api === api);
  if (!column) throw new Error(`The sub-record kind ${kind.assetType} has no column ${api}.`);
  return column;
}
