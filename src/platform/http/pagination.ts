// Pages and the one list envelope (docs/interface.md, decisions 1 and 4, and §4.8): every paginated list
// answers { data, total, page, pageSize, links, meta: { totalCount, page, size } }, with absolute
// links that keep every other query parameter the caller sent.
//
// Lists that can seek (keyset pagination) put an opaque `cursor` beside `page` in their prev,
// next and last links: the next page starts right after the last row of this one, so following
// the links costs the same on page 1,000 as on page 0, and rows inserted or deleted between two
// requests never make a row appear twice or go missing. `page` keeps working alone (an offset);
// with a cursor it only numbers the page.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';

/** The sort key of a row: the sort field's value, then the tie-breakers. */
export type RowKey = (string | number | boolean | null)[];

/** Where a page starts: after or before a row, the last rows of the list, or an offset. */
export type Cursor = { after: RowKey } | { before: RowKey } | { tail: true };

export interface PageRequest {
  page: number;
  size: number;
  cursor?: Cursor;
}

/** The rows a page query must return. */
export type PageWindow =
  | { kind: 'offset'; offset: number; limit: number }
  | { kind: 'after' | 'before'; key: RowKey; limit: number }
  | { kind: 'tail'; limit: number };

/** A page of rows read through a window, and what the links need from it. */
export interface WindowedRows<T> {
  rows: T[];
  /** The sort keys of the first and last rows (keyset lists only). */
  firstKey?: RowKey;
  lastKey?: RowKey;
  /** Whether rows follow the last one. */
  more: boolean;
}

export interface PageLinks {
  first: string;
  prev?: string;
  next?: string;
  last?: string;
}

export interface PageEnvelope<T> {
  data: T[];
  total: number;
  page: number;
  pageSize: number;
  links: PageLinks;
  meta: { totalCount: number; page: number; size: number };
}

// The longest sort key: a part's name, then an interface's host name, host, ifIndex, name and id.
const MAX_KEY_LENGTH = 6;

/** The answer to a cursor that does not fit the list it was sent to. */
export function foreignCursor(): BadRequestError {
  return new BadRequestError('The cursor does not belong to this list: follow the links of a list as they are.', [{ path: 'query.cursor', message: 'cursor of another list' }]);
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  const invalid = () => new BadRequestError('The cursor is not one this service gave out: follow the links of a list as they are.', [{ path: 'query.cursor', message: 'invalid cursor' }]);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  // No NUL: no store holds one (a query string's NUL is refused before it gets here; a cursor's is encoded).
  const isKey = (k: unknown) => Array.isArray(k) && k.length > 0 && k.length <= MAX_KEY_LENGTH && k.every((v) => v === null || ['number', 'boolean'].includes(typeof v) || (typeof v === 'string' && !v.includes('\u0000')));
  if (typeof value !== 'object' || value === null) throw invalid();
  const c = value as Record<string, unknown>;
  if (isKey(c.after)) return { after: c.after as RowKey };
  if (isKey(c.before)) return { before: c.before as RowKey };
  if (c.tail === true) return { tail: true };
  throw invalid();
}

/** page, size and cursor as validated by api.yaml; a size above the cap is lowered to it, not refused. */
export function pageRequest(query: Request['query'], defaultSize: number, maxSize: number): PageRequest {
  const page = Number(query.page ?? 0);
  const size = Math.min(Number(query.size ?? defaultSize), maxSize);
  const cursor = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : undefined;
  return { page, size, cursor };
}

/**
 * The rows to read for a request: one more than the page, to tell whether another page follows.
 * `total` is needed only to size the last page.
 */
export function pageWindow({ page, size, cursor }: PageRequest, total?: number): PageWindow {
  if (cursor && 'after' in cursor) return { kind: 'after', key: cursor.after, limit: size + 1 };
  if (cursor && 'before' in cursor) return { kind: 'before', key: cursor.before, limit: size + 1 };
  if (cursor && 'tail' in cursor) return { kind: 'tail', limit: Math.max(1, (total ?? 0) - lastPageOf(total ?? 0, size) * size) };
  return { kind: 'offset', offset: page * size, limit: size + 1 };
}

/** Cuts the extra row a window read to look ahead; `rows` are in list order. */
export function windowed<T>(window: PageWindow, rows: T[], keyOf?: (row: T) => RowKey): WindowedRows<T> {
  let page = rows;
  let more = false;
  if (window.kind === 'before') {
    // Read backwards: the extra row is the one before the page.
    if (rows.length > window.limit - 1) page = rows.slice(1);
    more = true;
  } else if (window.kind !== 'tail') {
    more = rows.length > window.limit - 1;
    page = rows.slice(0, window.limit - 1);
  }
  const first = page[0];
  const last = page.at(-1);
  return { rows: page, more, firstKey: keyOf && first !== undefined ? keyOf(first) : undefined, lastKey: keyOf && last !== undefined ? keyOf(last) : undefined };
}

function lastPageOf(total: number, size: number): number {
  return Math.max(0, Math.ceil(total / size) - 1);
}

export function pageLinks<T>(req: Request, { page, size }: PageRequest, total: number, nav?: WindowedRows<T>): PageLinks {
  const lastPage = lastPageOf(total, size);
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  const at = (n: number, cursor?: Cursor) => {
    url.searchParams.set('page', String(n));
    if (cursor) url.searchParams.set('cursor', encodeCursor(cursor));
    else url.searchParams.delete('cursor');
    return url.toString();
  };
  const keyset = nav?.firstKey !== undefined && nav.lastKey !== undefined;
  const links: PageLinks = { first: at(0) };
  if (page > 0) links.prev = page - 1 === 0 || !keyset ? at(Math.min(page - 1, lastPage)) : at(page - 1, { before: nav.firstKey as RowKey });
  const more = nav ? nav.more : page < lastPage;
  if (more) links.next = keyset ? at(page + 1, { after: nav.lastKey as RowKey }) : at(page + 1);
  if (lastPage > 0) links.last = nav?.firstKey !== undefined ? at(lastPage, { tail: true }) : at(lastPage);
  return links;
}

export function pageEnvelope<T>(req: Request, data: T[], total: number, request: PageRequest, nav?: WindowedRows<unknown>): PageEnvelope<T> {
  return {
    data,
    total,
    page: request.page,
    pageSize: request.size,
    links: pageLinks(req, request, total, nav),
    meta: { totalCount: total, page: request.page, size: request.size },
  };
}

/**
 * One part of a list made of parts listed one after another (graph assets, then each synthesized
 * type): how many rows it holds, and its rows through a window of its own, each with its key.
 */
export interface ListPart<T> {
  name: string;
  size: number;
  read(window: PageWindow): Promise<{ item: T; key: RowKey }[]>;
}

/**
 * The rows of a window over parts listed one after another, in list order, each keyed by its
 * part's name and then its key in the part: a seek starts in the part its cursor names and reads
 * on into the next parts (or back into the previous ones) until the window is full; an offset is
 * placed by the parts' sizes.
 */
export async function readAcrossParts<T>(parts: ListPart<T>[], window: PageWindow): Promise<{ item: T; key: RowKey }[]> {
  const tagged = (part: ListPart<T>, rows: { item: T; key: RowKey }[]) => rows.map((r) => ({ item: r.item, key: [part.name, ...r.key] }));
  const out: { item: T; key: RowKey }[] = [];
  if (window.kind === 'offset') {
    let skip = window.offset;
    for (const part of parts) {
      if (out.length >= window.limit) break;
      if (skip >= part.size) {
        skip -= part.size;
        continue;
      }
      out.push(...tagged(part, await part.read({ kind: 'offset', offset: skip, limit: window.limit - out.length })));
      skip = 0;
    }
    return out;
  }
  let at = parts.length - 1;
  let first: PageWindow = { kind: 'tail', limit: window.limit };
  if (window.kind === 'after' || window.kind === 'before') {
    at = parts.findIndex((p) => p.name === window.key[0]);
    if (at === -1) throw foreignCursor();
    first = { kind: window.kind, key: window.key.slice(1), limit: window.limit };
  }
  const forwards = window.kind === 'after';
  for (let i = at; i >= 0 && i < parts.length && out.length < window.limit; i += forwards ? 1 : -1) {
    const part = parts[i] as ListPart<T>;
    const limit = window.limit - out.length;
    if (i !== at && part.size === 0) continue;
    const rows = tagged(part, await part.read(i === at ? { ...first, limit } : forwards ? { kind: 'offset', offset: 0, limit } : { kind: 'tail', limit }));
    if (forwards) out.push(...rows);
    else out.unshift(...rows);
  }
  return out;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

export interface Sort<F extends string> {
  field: F;
  direction: 'asc' | 'desc';
}

/** `sort=field` or `sort=field,asc|desc`; api.yaml restricts the field to the list's allow-list. */
export function parseSort<F extends string>(value: unknown, fallback: Sort<F>): Sort<F> {
  if (typeof value !== 'string' || !value) return fallback;
  const [field, direction] = value.split(',');
  return { field: field as F, direction: direction === 'desc' ? 'desc' : 'asc' };
}
