// The feature routers behind one lookup. Mounted one after another, every request would enter
// each router in turn until one answers (some 20 for a path late in the list, each a dispatch
// with its own bookkeeping and a pattern test per route). Here a request enters only the routers
// that hold a route under its first path segments, in the order they were given.
import type { RequestHandler, Router } from 'express';

// Segments of the key: '/api/v1/assets' for '/api/v1/assets/{assetId}/provenance'.
const KEY_SEGMENTS = 3;
// A segment that a pattern could match with more than its own text (a parameter, a wildcard).
const PATTERN_SEGMENT = /[:*?()[\]{}]/;

/** The key of a path, lower-cased as Express matches routes (case-insensitive, a trailing slash allowed). */
function keyOf(path: string): string {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/', KEY_SEGMENTS + 1).join('/').toLowerCase();
}

/** The keys of a router's routes, or undefined when a request with any path could reach it. */
function keysOf(router: Router): Set<string> | undefined {
  const keys = new Set<string>();
  for (const layer of router.stack) {
    const path: unknown = layer.route?.path;
    if (typeof path !== 'string') return undefined;
    const head = path.split('/', KEY_SEGMENTS + 1);
    if (head.some((segment) => PATTERN_SEGMENT.test(segment))) return undefined;
    keys.add(keyOf(path));
  }
  return keys;
}

export function routeIndex(routers: Router[]): RequestHandler {
  const keyed = routers.map((router) => ({ router, keys: keysOf(router) }));
  const anyPath = keyed.filter((r) => !r.keys).map((r) => r.router);
  const byKey = new Map<string, Router[]>();
  for (const key of new Set(keyed.flatMap((r) => [...(r.keys ?? [])]))) {
    byKey.set(key, keyed.filter((r) => !r.keys || r.keys.has(key)).map((r) => r.router));
  }
  return (req, res, next) => {
    const chain = byKey.get(keyOf(req.path)) ?? anyPath;
    let at = 0;
    const step = (error?: unknown) => {
      if (error || at === chain.length) return next(error);
      (chain[at++] as Router)(req, res, step);
    };
    step();
  };
}
