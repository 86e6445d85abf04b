// A bounded, deterministic fuzzer driven by api.yaml: for every operation it builds a request that
// the contract accepts, then variants of it that each carry one hostile value (a NUL or an unpaired
// surrogate, a huge or wrongly typed number, deep nesting, an oversized string, a body in another
// charset or falsely declared gzip, a body that is not JSON). Pure: it only produces requests.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface FuzzRequest {
  /** What the variant carries, for the failure message. */
  label: string;
  method: string;
  /** Path and query, already encoded (hostile bytes stay percent-encoded as sent). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

type Schema = Record<string, any>;
type Values = Record<string, string>;

const MAX_BODY_LEAVES = 8;
// Each parameter or body field gets one in SHARE of the hostile values, rotating from one to the
// next, so that every class reaches every operation while the whole run stays within a few hundred writes.
const SHARE = 4;
const rotating = <T>(values: T[], offset: number): T[] => values.filter((_v, k) => (k + offset) % SHARE === 0);
export const NESTING_DEPTH = 5000;

const HUGE: [string, string] = ['a huge integer', '99999999999999999999'];

const EDGE_TIMES: [string, string][] = [['the year 0', '0000-01-01T00:00:00Z'], ['a leap second', '2026-06-30T23:59:60Z'], ['a day that is not in the calendar', '2025-02-30T00:00:00Z']];

/** Query or path values that no endpoint should answer with a 5xx. */
const HOSTILE_PARAMETERS: [string, string][] = [
  ['a NUL', '%00'],
  ['an unpaired surrogate (as CESU bytes)', '%ED%A0%80'],
  ['a truncated UTF-8 sequence', '%F0%9F'],
  HUGE,
  ['a negative number', '-1'],
  ['a fraction', '1.5'],
  ['a word', 'abc'],
  ['an empty value', ''],
  ['a long value', 'x'.repeat(4000)],
  ['a formula', '%3D1%2B1'],
];

/** Values put in place of one field of a valid body. */
function hostileJsonValues(): [string, unknown][] {
  return [
    ['a NUL', 'a\u0000b'],
    ['an unpaired surrogate', 'a\ud800b'],
    ['a huge integer', 99999999999999999999],
    ['a negative fraction', -1.5],
    ['a wrong type (object)', { nested: true }],
    ['a wrong type (array)', ['x']],
    ['null', null],
    ['deep nesting', DEEP],
  ];
}

// JSON.stringify recurses: deep nesting is written as text and put in place of this marker.
const DEEP = '\u0001deep-nesting\u0001';

/** `depth` levels of alternating objects and arrays, as JSON text. */
export function deepNestingJson(depth: number): string {
  const opening = Array.from({ length: depth }, (_v, i) => (i % 2 ? '[' : '{"d":')).join('');
  const closing = Array.from({ length: depth }, (_v, i) => (i % 2 ? ']' : '}')).reverse().join('');
  return `${opening}"bottom"${closing}`;
}

export function loadApi(file: string): Schema {
  return parseYaml(readFileSync(file, 'utf8')) as Schema;
}

function resolve(api: Schema, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  while (current.$ref) current = current.$ref.replace(/^#\//, '').split('/').reduce((node: Schema, part: string) => node[part], api);
  if (current.allOf) return Object.assign({}, ...current.allOf.map((s: Schema) => resolve(api, s)));
  return current;
}

/** A value the schema accepts, preferring the example, the default or the first enum value. */
function validValue(api: Schema, raw: Schema | undefined, name: string, known: Values): unknown {
  const schema = resolve(api, raw);
  if (known[name] !== undefined) return schema.type === 'array' ? [known[name]] : known[name];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return schema.minItems || schema.items ? [validValue(api, schema.items, name, known)] : [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = validValue(api, schema.properties?.[key], key, known);
      return out;
    }
    default:
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (schema.format === 'date') return '2026-01-01';
      return `fuzz-${name}`.slice(0, schema.maxLength ?? 100);
  }
}

/** Paths (property names and array index 0) of every leaf of a schema, to a bounded depth. */
function leafPaths(api: Schema, raw: Schema | undefined, prefix: (string | number)[] = [], depth = 0): (string | number)[][] {
  const schema = resolve(api, raw);
  if (depth > 4) return [prefix];
  if (schema.type === 'object' && schema.properties) {
    return Object.entries(schema.properties).flatMap(([key, child]) => leafPaths(api, child as Schema, [...prefix, key], depth + 1));
  }
  if (schema.type === 'array' && schema.items) return [prefix, ...leafPaths(api, schema.items, [...prefix, 0], depth + 1)];
  return [prefix];
}

/** A copy of `body` with `value` at `path`, made valid along the way (missing parents generated). */
function withValueAt(api: Schema, rawSchema: Schema, body: unknown, path: (string | number)[], value: unknown, known: Values): unknown {
  if (path.length === 0) return value;
  const schema = resolve(api, rawSchema);
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (typeof head === 'number') {
    const items = Array.isArray(body) && body.length ? [...body] : [validValue(api, schema.items, 'item', known)];
    items[0] = withValueAt(api, schema.items ?? {}, items[0], rest, value, known);
    return items;
  }
  const object = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as object) } : {};
  const child = schema.properties?.[head] ?? {};
  const current = (object as Record<string, unknown>)[head] ?? (rest.length ? validValue(api, child, head, known) : undefined);
  (object as Record<string, unknown>)[head] = withValueAt(api, child, current, rest, value, known);
  return object;
}

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? 'missing');
}

function jsonBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value).replace(JSON.stringify(DEEP), () => deepNestingJson(NESTING_DEPTH)), 'utf8');
}

/**
 * Every variant of every operation. `known` holds valid values by parameter or property name
 * (ids of resources that exist); the requests are made for `principalHeaders`.
 */
export function fuzzRequests(api: Schema, known: Values, principalHeaders: Record<string, string>): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  let offset = 0;
  for (const [template, item] of Object.entries(api.paths as Record<string, Schema>)) {
    for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: Schema) => resolve(api, p));
      const pathValues: Record<string, string> = {};
      for (const p of parameters.filter((p) => p.in === 'path')) pathValues[p.name] = encodeURIComponent(String(validValue(api, p.schema, p.name, known)));
      const requiredQuery = parameters.filter((p) => p.in === 'query' && p.required);
      const baseQuery = requiredQuery.map((p) => `${p.name}=${encodeURIComponent(String(validValue(api, p.schema, p.name, known)))}`);
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      const validBody = bodySchema ? validValue(api, bodySchema, 'body', known) : undefined;
      const name = `${method.toUpperCase()} ${template}`;
      const json = { 'content-type': 'application/json' };
      const make = (label: string, pathParams: Record<string, string>, query: string[], headers: Record<string, string>, body?: Buffer): FuzzRequest => ({
        label: `${name}: ${label}`,
        method: method.toUpperCase(),
        path: fillPath(template, pathParams) + (query.length ? `?${query.join('&')}` : ''),
        headers: { ...principalHeaders, ...headers },
        body,
      });
      const bodyBytes = validBody === undefined ? undefined : jsonBody(validBody);
      const bodyHeaders = bodyBytes ? json : {};

      for (const p of parameters.filter((p) => p.in === 'path')) {
        for (const [what, value] of rotating(HOSTILE_PARAMETERS, offset++)) {
          if (value === '') continue;
          out.push(make(`path ${p.name} holds ${what}`, { ...pathValues, [p.name]: value }, baseQuery, bodyHeaders, bodyBytes));
        }
      }
      for (const p of parameters.filter((p) => p.in === 'query')) {
        const others = baseQuery.filter((q) => !q.startsWith(`${p.name}=`));
        // A number that fits no store's integer goes to every integer parameter (pages, sizes, limits).
        // And times at the edges of what the stores hold (a year 0, a leap second) to every time parameter.
        const schema = resolve(api, p.schema);
        const values = rotating(HOSTILE_PARAMETERS, offset++).concat(schema.type === 'integer' ? [HUGE] : [], schema.format === 'date-time' ? EDGE_TIMES : []);
        for (const [what, value] of new Set(values)) out.push(make(`query ${p.name} holds ${what}`, pathValues, [...others, `${p.name}=${value}`], bodyHeaders, bodyBytes));
        out.push(make(`query ${p.name} given twice`, pathValues, [...others, `${p.name}=1`, `${p.name}=2`], bodyHeaders, bodyBytes));
      }
      out.push(make('an unknown query parameter', pathValues, [...baseQuery, 'fuzz%00=1'], bodyHeaders, bodyBytes));

      // The body classes apply to every operation: one that takes no body must not choke on one either.
      const sample = bodyBytes ?? jsonBody({ fuzz: true });
      out.push(make('a latin1 charset', pathValues, baseQuery, { 'content-type': 'application/json; charset=latin1' }, Buffer.from(sample.toString('utf8'), 'latin1')));
      out.push(make('gzip declared on a plain body', pathValues, baseQuery, { ...json, 'content-encoding': 'gzip' }, sample));
      out.push(make('a whole body nested deep', pathValues, baseQuery, json, jsonBody(DEEP)));
      if (!bodySchema) continue;
      out.push(make('a utf-16 charset', pathValues, baseQuery, { 'content-type': 'application/json; charset=utf-16' }, Buffer.from(sample.toString('utf8'), 'utf16le')));
      out.push(make('deflate declared on a plain body', pathValues, baseQuery, { ...json, 'content-encoding': 'deflate' }, sample));
      out.push(make('an unknown content encoding', pathValues, baseQuery, { ...json, 'content-encoding': 'x-fuzz' }, sample));
      out.push(make('bytes that are not UTF-8', pathValues, baseQuery, json, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])));
      out.push(make('truncated JSON', pathValues, baseQuery, json, sample.subarray(0, Math.max(1, sample.length - 1))));
      out.push(make('a body of another media type', pathValues, baseQuery, { 'content-type': 'text/plain' }, Buffer.from('plain text')));
      for (const [what, value] of [['an array', [validBody]], ['a string', 'fuzz'], ['null', null], ['a number', 1]] as const) {
        out.push(make(`a body that is ${what}`, pathValues, baseQuery, json, jsonBody(value)));
      }

      const leaves = leafPaths(api, bodySchema).filter((p) => p.length).slice(0, MAX_BODY_LEAVES);
      for (const [i, leaf] of leaves.entries()) {
        for (const [what, value] of rotating(hostileJsonValues(), i + offset)) {
          const body = withValueAt(api, bodySchema, validBody, leaf, value, known);
          out.push(make(`body ${leaf.join('.')} holds ${what}`, pathValues, baseQuery, json, jsonBody(body)));
        }
      }
    }
  }
  return out;
}
