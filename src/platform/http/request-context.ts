// Gives every request an id (the caller's X-Request-Id when it is sane, a new UUID otherwise),
// echoes it, keeps it in the logging context and writes one access-log line per request.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { requestContext, type Logger } from '../logger.js';

const SANE_REQUEST_ID = /^[\w.:-]{1,128}$/;

export function requestContextMiddleware(logger: Logger): RequestHandler {
  const accessLog = logger.child({ module: 'http' });
  return (req, res, next) => {
    const offered = req.get('x-request-id');
    const requestId = offered && SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      accessLog.info('request', {
        requestId,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        durationMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
      });
    });
    requestContext.run({ requestId }, next);
  };
}
