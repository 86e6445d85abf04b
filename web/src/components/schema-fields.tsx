// Form fields built from a JSON Schema the API serves (a discovery method's settings, a credential
// kind's settings), so that a new setting, method or kind shows in the forms without a change here.
// A field left empty is not sent: the API's default holds.
import { useState } from 'react';
import { Field } from './ui';

/** What the forms read of a JSON Schema property. */
interface PropertySchema {
  type?: string;
  description?: string;
  enum?: unknown[];
  maxLength?: number;
  format?: string;
  minimum?: number;
  maximum?: number;
  /** An array's items. */
  items?: PropertySchema;
  /** An object's named fields. */
  properties?: Record<string, PropertySchema>;
  required?: string[];
  /** A map's keys (AWS endpoints by service) and its values' schema. */
  propertyNames?: { enum?: unknown[] };
  additionalProperties?: PropertySchema | boolean;
}

/** What the forms read of an object's JSON Schema. */
export interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

export type FieldValue = string | number | boolean | (string | number)[] | FieldValues;
export interface FieldValues {
  [key: string]: FieldValue;
}

/** The properties of an object schema, in its order. */
export function schemaProperties(schema: unknown): string[] {
  return Object.keys((schema as ObjectSchema | null)?.properties ?? {});
}

/**
 * The fields of an object property: its own properties, or, for a map whose keys the schema lists
 * (propertyNames with an enum), one field per key with the schema of the map's values.
 */
function fieldsOf(property: PropertySchema): Record<string, PropertySchema> | undefined {
  if (property.type !== 'object') return undefined;
  if (property.properties) return property.properties;
  const keys = property.propertyNames?.enum;
  const values = property.additionalProperties;
  if (keys && typeof values === 'object') return Object.fromEntries(keys.map((k) => [String(k), values]));
  return undefined;
}

const isNumeric = (property: PropertySchema | undefined) => property?.type === 'integer' || property?.type === 'number';

/**
 * A list of strings or numbers, one a line. What was typed is kept as typed (a new empty line
 * included), while the form holds the list it means.
 */
function ListInput({ property, required, value, onChange }: { property: PropertySchema; required: boolean; value: FieldValue | undefined; onChange: (value: (string | number)[] | undefined) => void }) {
  const [typed, setTyped] = useState(Array.isArray(value) ? value.join('\n') : '');
  return (
    <textarea
      rows={3}
      required={required}
      value={typed}
      onChange={(e) => {
        setTyped(e.target.value);
        const items = e.target.value.split('\n').map((line) => line.trim()).filter(Boolean);
        onChange(items.length ? items.map((item) => (isNumeric(property.items) && item !== '' && !Number.isNaN(Number(item)) ? Number(item) : item)) : undefined);
      }}
    />
  );
}

/**
 * One field per property: a yes/no choice for a boolean, a list for an enum, a number for an
 * integer or number, text (a text area when long) for a string, a text area of one item a line for
 * an array, and a group of fields for an object (a map with named keys too). `label` names each field.
 */
export function SchemaFields({ schema, values, onChange, label }: {
  schema: unknown;
  values: FieldValues;
  onChange: (values: FieldValues) => void;
  label: (key: string, property: PropertySchema) => string;
}) {
  const { properties = {}, required = [] } = (schema as ObjectSchema | null) ?? {};
  const set = (key: string, value: FieldValue | undefined) => {
    const next = { ...values };
    if (value === undefined || value === '') delete next[key];
    else next[key] = value;
    onChange(next);
  };
  return (
    <>
      {Object.entries(properties).map(([key, property]) => {
        const value = values[key];
        const current = value === undefined || typeof value === 'object' ? '' : String(value);
        const isRequired = required.includes(key);
        const fields = fieldsOf(property);
        if (fields) {
          const inner = value && typeof value === 'object' && !Array.isArray(value) ? value : {};
          return (
            <fieldset key={key} className="nested">
              <legend>{label(key, property)}</legend>
              <SchemaFields schema={{ properties: fields, required: property.required }} values={inner}
                onChange={(next) => set(key, Object.keys(next).length ? next : undefined)}
                label={(child, childProperty) => label(`${key} ${child}`, childProperty)} />
            </fieldset>
          );
        }
        return (
          <Field key={key} label={property.type === 'array' ? `${label(key, property)}, one a line` : label(key, property)}>
            {property.type === 'array' ? (
              <ListInput property={property} required={isRequired} value={value} onChange={(items) => set(key, items)} />
            ) : property.type === 'boolean' ? (
              <select value={current} onChange={(e) => set(key, e.target.value === '' ? undefined : e.target.value === 'true')}>
                <option value="">default</option>
                <option value="true">yes</option>
                <option value="false">no</option>
              </select>
            ) : property.enum ? (
              <select required={isRequired} value={current} onChange={(e) => set(key, e.target.value)}>
                <option value="">{isRequired ? 'choose' : 'default'}</option>
                {property.enum.map((option) => <option key={String(option)}>{String(option)}</option>)}
              </select>
            ) : isNumeric(property) ? (
              <input type="number" required={isRequired} min={property.minimum} max={property.maximum} step={property.type === 'integer' ? 1 : 'any'} value={current}
                onChange={(e) => set(key, e.target.value === '' ? undefined : Number(e.target.value))} />
            ) : (property.maxLength ?? 0) > 1000 && !property.format ? (
              <textarea rows={3} required={isRequired} maxLength={property.maxLength} value={current} onChange={(e) => set(key, e.target.value)} />
            ) : (
              <input required={isRequired} maxLength={property.maxLength} inputMode={property.format === 'uri' ? 'url' : undefined} value={current} onChange={(e) => set(key, e.target.value)} />
            )}
          </Field>
        );
      })}
    </>
  );
}
