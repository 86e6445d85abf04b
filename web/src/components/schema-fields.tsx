// Form fields built from a JSON Schema the API serves (a discovery method's settings, a credential
// kind's settings), so that a new setting, method or kind shows in the forms without a change here.
// A field left empty is not sent: the API's default holds.
import { Field } from './ui';

/** What the forms read of a JSON Schema property. */
interface PropertySchema {
  type?: string;
  description?: string;
  enum?: unknown[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

/** What the forms read of an object's JSON Schema. */
export interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

export type FieldValue = string | number | boolean;

/** The properties of an object schema, in its order. */
export function schemaProperties(schema: unknown): string[] {
  return Object.keys((schema as ObjectSchema | null)?.properties ?? {});
}

/**
 * One field per property: a yes/no choice for a boolean, a list for an enum, a number for an
 * integer or number, text (a text area when long) for a string. `label` names each field.
 */
export function SchemaFields({ schema, values, onChange, label }: {
  schema: unknown;
  values: Record<string, FieldValue>;
  onChange: (values: Record<string, FieldValue>) => void;
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
        const current = key in values ? String(values[key]) : '';
        const isRequired = required.includes(key);
        return (
          <Field key={key} label={label(key, property)}>
            {property.type === 'boolean' ? (
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
            ) : property.type === 'integer' || property.type === 'number' ? (
              <input type="number" required={isRequired} min={property.minimum} max={property.maximum} step={property.type === 'integer' ? 1 : 'any'} value={current}
                onChange={(e) => set(key, e.target.value === '' ? undefined : Number(e.target.value))} />
            ) : (property.maxLength ?? 0) > 1000 ? (
              <textarea rows={3} required={isRequired} maxLength={property.maxLength} value={current} onChange={(e) => set(key, e.target.value)} />
            ) : (
              <input required={isRequired} maxLength={property.maxLength} value={current} onChange={(e) => set(key, e.target.value)} />
            )}
          </Field>
        );
      })}
    </>
  );
}
