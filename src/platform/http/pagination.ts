// Pages and the one list envelope (DESIGN.md decisions 1 and 4; spec 4.8): every paginated list
// answers { data, total, page, pageSize, links, meta: { totalCount, page, size } }, with absolute
// links that keep every other query parameter the caller sent.
import type { Request } from 'express';

export interface PageRequest {
  page: number;
  size: number;
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

/** page and size as validated by api.yaml; a size above the cap is lowered to it, not refused. */
export function pageRequest(query: Request['query'], defaultSize: number, maxSize: number): PageRequest {
  const page = Number(query.page ?? 0);
  const size = Math.min(Number(query.size ?? defaultSize), maxSize);
  return { page, size };
}

export function pageLinks(req: Request, { page, size }: PageRequest, total: number): PageLinks {
  const lastPage = Math.max(0, Math.ceil(total / size) - 1);
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  const at = (n: number) => {
    url.searchParams.set('page', String(n));
    return url.toString();
  };
  const links: PageLinks = { first: at(0) };
  if (page > 0) links.prev = at(Math.min(page - 1, lastPage));
  if (page < lastPage) links.next = at(page + 1);
  if (lastPage > 0) links.last = at(lastPage);
  return links;
}

export function pageEnvelope<T>(req: Request, data: T[], total: number, request: PageRequest): PageEnvelope<T> {
  return {
    data,
    total,
    page: request.page,
    pageSize: request.size,
    links: pageLinks(req, request, total),
    meta: { totalCount: total, page: request.page, size: request.size },
  };
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
