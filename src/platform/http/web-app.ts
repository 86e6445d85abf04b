// The web UI (web/dist, built by Vite) under the context path: its files, and its page for every
// other GET that a browser makes for a page (the app routes on the client). The page gets the
// context path as its <base>, so that one build serves any path. The API, the health checks and
// the API document are never shadowed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type Request } from 'express';
import { fromProjectRoot } from '../project-root.js';

const DIST = fromProjectRoot('web', 'dist');
const NOT_PAGES = /^\/(api|health|swagger-ui|api\.yaml)(\/|\.|$)/;

// The page's own policy: its scripts and styles come from here only; the API from this origin.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

function wantsPage(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && !NOT_PAGES.test(req.path) && (req.get('accept') ?? '').includes('text/html');
}

/** The UI, or an empty router when it was not built (the API still answers). */
export function webAppRouter(contextPath: string): Router {
  const router = Router();
  const indexFile = path.join(DIST, 'index.html');
  if (!existsSync(indexFile)) return router;
  const page = readFileSync(indexFile, 'utf8').replace('<base href="/" />', `<base href="${contextPath}/" />`);
  const headers = (res: express.Response) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
  };
  // Hashed file names never change: kept a year. The page itself is always asked again.
  router.use('/static', express.static(path.join(DIST, 'static'), { immutable: true, maxAge: '365d', index: false, fallthrough: false }));
  router.use((req, res, next) => {
    if (!wantsPage(req)) return next();
    headers(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(page);
  });
  return router;
}
