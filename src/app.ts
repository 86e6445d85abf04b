// Builds the Express app from the container: the middleware in its order, then the routers of the
// features of src/features.ts. main.ts (or a test) makes it listen.
import compression from 'compression';
import express, { type Express } from 'express';
import type { Container } from './container.js';
import { authenticationMiddleware, sessionCookiePath, sessionMiddleware } from './features/auth/authentication-middleware.js';
import { authorizationMiddleware } from './features/auth/authorization-middleware.js';
import { FEATURES } from './features.js';
import { NotFoundError } from './platform/errors.js';
import { allowedMethods, allowOn405, corsAndOptions, headAsGet, linkHeader } from './platform/http/http-conventions.js';
import { apiDocsRouter, openApiValidator } from './platform/http/openapi.js';
import { problemHandler } from './platform/http/problem-handler.js';
import { webAppRouter } from './platform/http/web-app.js';
import { requestContextMiddleware } from './platform/http/request-context.js';
import { routeIndex } from './platform/http/route-index.js';
import { unstorableTextGuard } from './platform/http/unstorable-text.js';
import { bodyDepthGuard, jsonBodies, utf8BodiesOnly } from './platform/http/request-body-guards.js';

const JSON_BODY_LIMIT = '1mb';
// An import bundle of 50,000 assets with their relationships.
const IMPORT_BODY_LIMIT = '64mb';
// A remote scanner's report: the inventories of the hosts it scanned in the last second or so.
const SCANNER_BODY_LIMIT = '16mb';

export function buildApp(container: Container): Express {
  const { config, logger, apiDocument } = container;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('trust proxy', trustProxyValue(config.trustProxy));

  const sessions = sessionMiddleware(container.sessionStore, {
    secret: container.secrets.sessionSecret,
    idleMinutes: config.sessionIdleMinutes,
    absoluteHours: config.sessionAbsoluteHours,
    cookiePath: sessionCookiePath(config.contextPath),
  });

  const allowOf = allowedMethods(apiDocument);
  const base = express.Router();
  base.use(corsAndOptions(config.corsOrigins, allowOf));
  base.use(apiDocsRouter(apiDocument));
  // The web UI's pages and files: before the validator, which answers 404 for what api.yaml lacks.
  base.use(webAppRouter(config.contextPath));
  base.use(utf8BodiesOnly());
  base.use('/api/v1/import', jsonBodies(IMPORT_BODY_LIMIT));
  base.use('/api/v1/scanner', jsonBodies(SCANNER_BODY_LIMIT));
  base.use(jsonBodies(JSON_BODY_LIMIT));
  // Who is calling is known before the validator runs; what they may do is checked right after
  // it matched the route (authorizationMiddleware), before it looks at the request; then text that
  // no store can hold is refused (unstorableTextGuard), before anything runs.
  base.use(['/api', '/metrics'], authenticationMiddleware(container.auth, sessions, config.sessionAbsoluteHours));
  base.use(headAsGet);
  base.use(openApiValidator(apiDocument, { validateResponses: config.validateResponses, contextPath: config.contextPath }, [authorizationMiddleware, unstorableTextGuard(), bodyDepthGuard()]));
  base.use(routeIndex(FEATURES.flatMap((feature) => feature.routes?.(container) ?? [])));

  app.use(requestContextMiddleware(logger, container.metrics));
  // gzip or br when the client asks (exports too, still streamed); below 1 kB it is not worth it.
  app.use(compression());
  app.use(linkHeader);
  app.use(config.contextPath || '/', base);
  app.use((_req, _res, next) => next(new NotFoundError('No such resource.')));
  app.use(config.contextPath || '/', allowOn405(allowOf));
  app.use(problemHandler(logger));
  return app;
}

/** Express's trust proxy setting from its text form. */
function trustProxyValue(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}
