// The one error handler: every failure leaves the service as RFC 9457 problem+json. Known errors
// keep their status and message; store outages become 503 naming the store; anything else is a
// 500 that is logged once with its stack and tells the client nothing of the cause.
import type { ErrorRequestHandler } from 'express';
import { AppError, BadRequestError, PayloadTooLargeError, StoreUnavailableError, UnsupportedMediaTypeError, type FieldError } from '../errors.js';
import { requestContext, type Logger } from '../logger.js';
import { isNeo4jUnavailable } from '../neo4j/neo4j-graph.js';
import { isPostgresUnavailable } from '../postgres/postgres-client.js';
import { NOT_UTF8 } from './request-body-guards.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  headers: Record<string, string>;
}

interface ValidatorError {
  status: number;
  message: string;
  errors?: { path?: string; message: string }[];
}

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 409: 'Conflict', 415: 'Unsupported Media Type',
};

function isValidatorError(error: unknown): error is ValidatorError {
  return error instanceof Error && typeof (error as { status?: unknown }).status === 'number' && Array.isArray((error as { errors?: unknown }).errors);
}

/** An http-errors client error of body-parser (it marks them `expose`). */
function isBodyReaderError(error: unknown): boolean {
  const e = error as { expose?: unknown; status?: unknown } | null;
  return e instanceof Error && e.expose === true && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && !isValidatorError(error);
}

function fromAppError(error: AppError): Problem {
  return { type: error.type, title: error.title, status: error.status, detail: error.message, errors: error.errors, headers: error.headers };
}

function plain(status: number, detail: string, errors?: FieldError[]): Problem {
  const title = STATUS_TITLES[status] ?? 'Error';
  return { type: `urn:problem-type:${title.toLowerCase().replace(/\s+/g, '-')}`, title, status, detail, errors, headers: {} };
}

/** Maps an error to a problem; undefined for an unexpected error (a 500). */
export function toProblem(error: unknown): Problem | undefined {
  if (error instanceof AppError) return fromAppError(error);
  if (isPostgresUnavailable(error)) return fromAppError(new StoreUnavailableError('PostgreSQL'));
  if (isNeo4jUnavailable(error)) return fromAppError(new StoreUnavailableError('Neo4j'));
  const bodyParserType = (error as { type?: unknown } | null)?.type;
  if (bodyParserType === 'entity.parse.failed') return plain(400, 'The request body is not valid JSON.');
  if (bodyParserType === NOT_UTF8) return fromAppError(new BadRequestError('The request body is not valid UTF-8: nothing was read (no byte is replaced).', [{ path: 'body', message: 'not UTF-8' }]));
  if (bodyParserType === 'entity.too.large') return fromAppError(new PayloadTooLargeError('The request body is too large.'));
  if (bodyParserType === 'encoding.unsupported') return fromAppError(new UnsupportedMediaTypeError('The request body\'s Content-Encoding is not supported (identity, gzip, deflate and br are).'));
  if (bodyParserType === 'charset.unsupported') return fromAppError(new UnsupportedMediaTypeError('The request body\'s charset is not supported: send UTF-8.'));
  // Any other refusal of the body reader (a body that does not inflate, a cut stream) is the client's.
  if (isBodyReaderError(error)) return fromAppError(new BadRequestError('The request body could not be read: it does not decode as its headers declare.'));
  if (isValidatorError(error) && error.status >= 400 && error.status < 500) {
    const errors = error.errors?.map((e) => ({ path: (e.path ?? '').replace(/^\.?\/?(query|body|path|headers)[./]?/, '$1.'), message: e.message }));
    const detail = error.status === 404 ? 'No such resource.' : error.status === 405 ? 'Method not allowed on this resource.' : error.message;
    return plain(error.status, detail, error.status === 400 ? errors : undefined);
  }
  return undefined;
}

export function problemHandler(logger: Logger): ErrorRequestHandler {
  const log = logger.child({ module: 'http' });
  return (error, req, res, _next) => {
    if (res.headersSent) {
      // A streamed answer cannot change its status any more: end it so the client sees a cut.
      log.error('error after the response started', { error, path: req.path });
      res.destroy();
      return;
    }
    let problem = toProblem(error);
    if (!problem) {
      log.error('unhandled error', { error, method: req.method, path: req.path });
      problem = plain(500, 'An unexpected error occurred; it has been logged.');
      problem.title = 'Internal Server Error';
      problem.type = 'urn:problem-type:internal-server-error';
    } else if (problem.status === 503) {
      log.warn('store unavailable', { detail: problem.detail, path: req.path });
    }
    const { headers, ...body } = problem;
    res
      .status(problem.status)
      .set(headers)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify({ ...body, instance: req.originalUrl.split('?')[0], requestId: requestContext.getStore()?.requestId }));
  };
}
