// The cursor codec and the keyset walk, without a store: a cursor the links give out is read back
// as the same seek; one the service never gave out is a 400; following next (or prev) links over a
// list made of parts visits every row once, in order, whatever the page size.
import type { Request } from 'express';
import { BadRequestError } from '../../src/platform/errors.js';
import { pageLinks, pageRequest, pageWindow, parseSort, readAcrossParts, windowed, type ListPart, type PageRequest, type RowKey } from '../../src/platform/http/pagination.js';

function requestFor(url: string): Request {
  const query = Object.fromEntries(new URL(url, 'http://inventory.test').searchParams);
  return { originalUrl: url, protocol: 'http', get: (name: string) => (name === 'host' ? 'inventory.test' : undefined), query } as unknown as Request;
}

/** A sorted in-memory part answering windows as a store's keyset query would. */
function part(name: string, keys: number[]): ListPart<string> {
  const rows = keys.map((k) => ({ item: `${name}:${k}`, key: [k] as RowKey }));
  return {
    name,
    size: rows.length,
    read: async (window) => {
      if (window.kind === 'offset') return rows.slice(window.offset, window.offset + window.limit);
      if (window.kind === 'tail') return rows.slice(Math.max(0, rows.length - window.limit));
      const at = window.key[0] as number;
      if (window.kind === 'after') return rows.filter((r) => (r.key[0] as number) > at).slice(0, window.limit);
      const before = rows.filter((r) => (r.key[0] as number) < at);
      return before.slice(Math.max(0, before.length - window.limit));
    },
  };
}

const PARTS = [part('assets', [1, 2, 3, 5, 8]), part('empty', []), part('packages', [1, 4, 9, 16]), part('services', [2, 7])];
const EVERY_ROW = ['assets:1', 'assets:2', 'assets:3', 'assets:5', 'assets:8', 'packages:1', 'packages:4', 'packages:9', 'packages:16', 'services:2', 'services:7'];

/** One page as a list router serves it: the window read over the parts, and its links. */
async function servePage(url: string, size: number) {
  const req = requestFor(url);
  const request: PageRequest = pageRequest(req.query, size, 1000);
  const window = pageWindow(request, EVERY_ROW.length);
  const rows = await readAcrossParts(PARTS, window);
  const page = windowed(window, rows, (r) => r.key);
  return { items: page.rows.map((r) => r.item), links: pageLinks(req, request, EVERY_ROW.length, page) };
}

describe('cursors and the keyset walk', () => {
  it.each([1, 2, 3, 4, 11, 50])('following next from the first page with %i rows a page visits every row once, in order', async (size) => {
    const seen: string[] = [];
    let url: string | undefined = `/api/v1/assets?size=${size}&q=x`;
    for (let pages = 0; url && pages < 20; pages++) {
      const { items, links } = await servePage(url, size);
      seen.push(...items);
      // The other query parameters ride along on every link.
      expect(new URL(links.first).searchParams.get('q')).toBe('x');
      url = links.next ? new URL(links.next).pathname + new URL(links.next).search : undefined;
    }
    expect(seen).toEqual(EVERY_ROW);
  });

  it.each([1, 3, 4])('following prev from the last link with %i rows a page visits every row once, back to the first', async (size) => {
    const first = await servePage(`/api/v1/assets?size=${size}`, size);
    let url: string | undefined = first.links.last ? new URL(first.links.last).pathname + new URL(first.links.last).search : undefined;
    const pages: string[][] = [];
    for (let n = 0; url && n < 20; n++) {
      const { items, links } = await servePage(url, size);
      pages.unshift(items);
      url = links.prev ? new URL(links.prev).pathname + new URL(links.prev).search : undefined;
    }
    expect(pages.flat()).toEqual(EVERY_ROW);
  });

  it('refuses with 400 a cursor the service never gave out, and one naming a part of another list', async () => {
    const refused = (cursor: string) => {
      try {
        pageRequest({ cursor }, 10, 1000);
        return undefined;
      } catch (error) {
        return error;
      }
    };
    const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of ['not base64 json', encoded([1, 2]), encoded({ after: [] }), encoded({ after: ['a\u0000b'] }), encoded({ after: [1, 2, 3, 4, 5, 6, 7] }), encoded({ after: [{ nested: 1 }] }), encoded({ tail: 'yes' })]) {
      const error = refused(cursor);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).status).toBe(400);
    }
    const foreign = pageWindow(pageRequest({ cursor: encoded({ after: ['hosts', 3] }) }, 10, 1000));
    await expect(readAcrossParts(PARTS, foreign)).rejects.toBeInstanceOf(BadRequestError);
  });

  it('lowers a size above the cap instead of refusing it, and reads a sort with its direction', () => {
    expect(pageRequest({ size: '5000', page: '2' }, 50, 1000)).toEqual({ page: 2, size: 1000, cursor: undefined });
    expect(parseSort('name,desc', { field: 'id', direction: 'asc' })).toEqual({ field: 'name', direction: 'desc' });
    expect(parseSort(undefined, { field: 'id', direction: 'asc' })).toEqual({ field: 'id', direction: 'asc' });
  });
});
