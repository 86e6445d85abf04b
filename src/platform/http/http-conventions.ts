// What HTTP clients expect beyond the API's own answers: HEAD wherever GET is served, OPTIONS and
// 405 answers that say which methods a resource has (Allow), RFC 8288 Link headers equal to the
// JSON links of a list, and CORS for the configured origins only.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { OpenApiDocument } from './openapi.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

// What a browser page on another origin may send and read.
const CORS_REQUEST_HEADERS = 'Authorization, Content-Type, X-Integration-Api-Key, X-Request-Id, If-None-Match';
const CORS_EXPOSED_HEADERS = 'Link, X-Request-Id, ETag, Content-Disposition, Retry-After';
const CORS_MAX_AGE_SECONDS = '600';

/** The methods of the api.yaml path that a request path falls on (its Allow header), or undefined. */
export function allowedMethods(doc: OpenApiDocument): (path: string) => string | undefined {
  const routes = Object.entries(doc.paths)
    .map(([template, item]) => {
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      const methods = METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => m.toUpperCase());
      if (methods.includes('GET')) methods.splice(1, 0, 'HEAD');
      // A literal path wins over a template that also matches it (/assets/export before /assets/{id}).
      return { regex: new RegExp(`^${pattern}/?$`), params: (template.match(/\{/g) ?? []).length, allow: [...methods, 'OPTIONS'].join(', ') };
    })
    .sort((a, b) => a.params - b.params);
  return (path) => routes.find((r) => r.regex.test(path))?.allow;
}

/**
 * HEAD is answered as GET without the body: the request goes on as a GET (same validation and
 * access), and Node sends no body for a response to a HEAD request.
 */
export const headAsGet: RequestHandler = (req, _res, next) => {
  if (req.method === 'HEAD') req.method = 'GET';
  next();
};

/**
 * CORS for the configured origins and OPTIONS for everyone: a preflight from a configured origin
 * gets the CORS answer, any other OPTIONS the resource's Allow header; the 404 of an unknown path
 * is left to what follows. Other origins get no CORS header, so browsers keep their pages out.
 */
export function corsAndOptions(origins: readonly string[], allowOf: (path: string) => string | undefined): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.get('origin');
    if (allowed.size > 0) res.vary('Origin');
    const corsAllowed = origin !== undefined && allowed.has(origin);
    if (corsAllowed) {
      res.set('Access-Control-Allow-Origin', origin);
      res.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    }
    if (req.method !== 'OPTIONS') return next();
    const allow = allowOf(req.path);
    if (!allow) return next();
    res.set('Allow', allow);
    if (corsAllowed && req.get('access-control-request-method')) {
      res.set('Access-Control-Allow-Methods', allow);
      res.set('Access-Control-Allow-Headers', CORS_REQUEST_HEADERS);
      res.set('Access-Control-Max-Age', CORS_MAX_AGE_SECONDS);
    }
    res.status(204).end();
  };
}

/** A 405 says which methods the resource has. */
export function allowOn405(allowOf: (path: string) => string | undefined): ErrorRequestHandler {
  return (error, req, res, next) => {
    const allow = (error as { status?: unknown } | null)?.status === 405 ? allowOf(req.path) : undefined;
    if (allow) res.set('Allow', allow);
    next(error);
  };
}

/** Every JSON answer with `links` (the lists) carries the same links as an RFC 8288 Link header. */
export const linkHeader: RequestHandler = (_req, res, next) => {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const links = (body as { links?: unknown } | null)?.links;
    if (links && typeof links === 'object' && !res.headersSent) {
      const values = Object.entries(links).filter((e): e is [string, string] => typeof e[1] === 'string');
      if (values.length) res.set('Link', values.map(([rel, url]) => `<${url}>; rel="${rel}"`).join(', '));
    }
    return json(body);
  };
  next();
};
