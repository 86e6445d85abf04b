// Gives every request an id (the caller's X-Request-Id when it is sane, a new UUID otherwise),
// echoes it, keeps it in the logging context, writes one access-log line per request and counts it
// in the metrics by its api.yaml route.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { requestContext, type Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';

const SANE_REQUEST_ID = /^[\w.:-]{1,128}$/;

export function requestContextMiddleware(logger: Logger, metrics: Metrics): RequestHandler {
  const accessLog = logger.child({ module: 'http' });
  return (req, res, next) => {
    const offered = req.get('x-request-id');
    const requestId = offered && SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // As sent: HEAD goes on as a GET (http-conventions.ts).
    const method = req.method;
    res.on('finish', () => {
      const durationMs = Number((process.hrtime.bigint() - started) / 1000n) / 1000;
      // winston formats a line before its transport drops it for its level: none is made below info.
      if (accessLog.isInfoEnabled()) accessLog.info('request', { requestId, method, path: req.originalUrl.split('?')[0], status: res.statusCode, durationMs });
      // The template, not the path: one series per operation whatever the ids.
      const route = (req as Request & { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute ?? 'unmatched';
      metrics.httpRequests.observe({ method, route, status: String(res.statusCode) }, durationMs / 1000);
    });
    requestContext.run({ requestId }, next);
  };
}
