// Builds the Express app from the container; main.ts (or a test) makes it listen.
import express, { type Express } from 'express';
import type { Container } from './container.js';
import { healthRouter } from './features/health/health-router.js';
import { NotFoundError } from './platform/errors.js';
import { apiDocsRouter, openApiValidator } from './platform/http/openapi.js';
import { problemHandler } from './platform/http/problem-handler.js';
import { requestContextMiddleware } from './platform/http/request-context.js';

const JSON_BODY_LIMIT = '1mb';

export function buildApp(container: Container): Express {
  const { config, logger, apiDocument } = container;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  const base = express.Router();
  base.use(apiDocsRouter(apiDocument));
  base.use(express.json({ limit: JSON_BODY_LIMIT }));
  base.use(openApiValidator(apiDocument, config.validateResponses));
  base.use(healthRouter(container.health));

  app.use(requestContextMiddleware(logger));
  app.use(config.contextPath || '/', base);
  app.use((_req, _res, next) => next(new NotFoundError('No such resource.')));
  app.use(problemHandler(logger));
  return app;
}
