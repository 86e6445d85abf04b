// api.yaml is the contract: it is served raw and through Swagger UI, and express-openapi-validator
// checks every request against it (and every response too when the setting asks for it).
import { readFileSync } from 'node:fs';
import express, { type RequestHandler, type Router } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import swaggerUi from 'swagger-ui-express';
import { fromProjectRoot } from '../project-root.js';
import { UUID_PATTERN } from '../uuid.js';
import { parseYamlFileCached } from '../yaml-file-cache.js';
import { patchOpenApiValidator } from './openapi-validator-patches.js';
import { responseValidation } from './response-validation.js';

export type OpenApiDocument = Record<string, unknown> & { servers?: { url: string }[]; paths: Record<string, unknown> };

const API_FILE = fromProjectRoot('api.yaml');

// Parsing api.yaml takes about a second on these cores, at every start (and the tests start the
// service some hundred times).
const API_JSON_CACHE = fromProjectRoot('node_modules', '.cache', 'asset-inventory');

/** The API document, with its server set to this deployment's context path. */
export function loadApiDocument(contextPath: string): OpenApiDocument {
  const doc = parseYamlFileCached(API_FILE, API_JSON_CACHE) as OpenApiDocument;
  doc.servers = [{ url: contextPath || '/' }];
  return doc;
}

interface ParameterObject {
  name?: string;
  in?: string;
  $ref?: string;
}

/** The names of the query parameters of an operation of the document (its own and those it references). */
export function queryParameterNames(doc: OpenApiDocument, operationId: string): string[] {
  const shared = ((doc.components as { parameters?: Record<string, ParameterObject> } | undefined)?.parameters) ?? {};
  for (const item of Object.values(doc.paths) as Record<string, { operationId?: string; parameters?: ParameterObject[] }>[]) {
    const operation = Object.values(item).find((o) => o.operationId === operationId);
    if (!operation) continue;
    const parameters = (operation.parameters ?? []).map((p) => (p.$ref ? shared[p.$ref.replace('#/components/parameters/', '')] : p));
    return parameters.flatMap((p) => (p?.in === 'query' && p.name ? [p.name] : []));
  }
  throw new Error(`api.yaml has no operation ${operationId}`);
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
export function openApiValidator(doc: OpenApiDocument, { validateResponses, contextPath }: { validateResponses: boolean; contextPath: string }, beforeValidation: RequestHandler[]): RequestHandler[] {
  patchOpenApiValidator();
  const middlewares = OpenApiValidator.middleware({
    apiSpec: doc as never,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
    // Checked by responseValidation (below) instead: it compiles the document once.
    validateResponses: false,
    validateSecurity: false,
    // Checked against the OpenAPI schema by the lint test (Spectral, Redocly), not at every start.
    validateApiSpec: false,
    ignoreUndocumented: false,
    // Dates checked against the calendar: the fast mode's pattern let 2025-02-30 through to the
    // stores, which refused it (a 500 after the first write of an import).
    ajvFormats: { mode: 'full' },
    // A UUID as the stores hold one: ajv-formats also takes a urn:uuid: prefix, which PostgreSQL
    // refuses (a 500 after the request passed).
    formats: { uuid: UUID_PATTERN },
  }) as RequestHandler[];
  // The name is that of express-openapi-validator 5.6 (pinned); a change fails the start at once.
  const at = middlewares.findIndex((m) => m.name === 'requestMiddleware');
  if (at < 0) throw new Error('express-openapi-validator: request validation middleware not found');
  return [...middlewares.slice(0, at), ...beforeValidation, ...middlewares.slice(at), ...(validateResponses ? [responseValidation(doc, contextPath)] : [])];
}
