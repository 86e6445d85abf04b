// api.yaml is the contract: it is served raw and through Swagger UI, and express-openapi-validator
// checks every request against it (and every response too when the setting asks for it).
import { readFileSync } from 'node:fs';
import express, { type RequestHandler, type Router } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import swaggerUi from 'swagger-ui-express';
import { parse as parseYaml } from 'yaml';
import { fromProjectRoot } from '../project-root.js';

export type OpenApiDocument = Record<string, unknown> & { servers?: { url: string }[]; paths: Record<string, unknown> };

const API_FILE = fromProjectRoot('api.yaml');

/** The API document, with its server set to this deployment's context path. */
export function loadApiDocument(contextPath: string): OpenApiDocument {
  const doc = parseYaml(readFileSync(API_FILE, 'utf8')) as OpenApiDocument;
  doc.servers = [{ url: contextPath || '/' }];
  return doc;
}

const SWAGGER_ASSET = /^\/(swagger-ui-init\.js|swagger-ui[\w.-]*\.(css|js)|favicon-(16x16|32x32)\.png)$/;

/** Swagger UI at /swagger-ui.html (its assets beside it) and the raw document at /api.yaml. */
export function apiDocsRouter(doc: OpenApiDocument): Router {
  const router = express.Router();
  const raw = readFileSync(API_FILE, 'utf8');
  const assets = express.Router().use(swaggerUi.serve);
  router.get('/api.yaml', (_req, res) => {
    res.type('application/yaml').send(raw);
  });
  router.get('/swagger-ui.html', swaggerUi.setup(doc, { customSiteTitle: 'Asset Inventory API' }));
  router.use((req, res, next) => (SWAGGER_ASSET.test(req.path) ? assets(req, res, next) : next()));
  return router;
}

/**
 * The validator's middlewares, with `beforeValidation` placed after it has matched the route
 * (req.openapi is set) and before it validates the request: access control goes there, so that
 * a caller without access gets 401/403 rather than a list of what was wrong with the request.
 */
export function openApiValidator(doc: OpenApiDocument, validateResponses: boolean, beforeValidation: RequestHandler[]): RequestHandler[] {
  const middlewares = OpenApiValidator.middleware({
    apiSpec: doc as never,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
    validateResponses: validateResponses ? { allErrors: true } : false,
    validateSecurity: false,
    validateApiSpec: true,
    ignoreUndocumented: false,
    // Dates checked against the calendar: the fast mode's pattern let 2025-02-30 through to the
    // stores, which refused it (a 500 after the first write of an import).
    ajvFormats: { mode: 'full' },
  }) as RequestHandler[];
  // The name is that of express-openapi-validator 5.6 (pinned); a change fails the start at once.
  const at = middlewares.findIndex((m) => m.name === 'requestMiddleware');
  if (at < 0) throw new Error('express-openapi-validator: request validation middleware not found');
  return [...middlewares.slice(0, at), ...beforeValidation, ...middlewares.slice(at)];
}
