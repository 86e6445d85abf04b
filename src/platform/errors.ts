// Typed errors that services throw; the one HTTP error handler turns them into RFC 9457
// problem details. Their messages are written for API clients: they never carry driver text.

export interface FieldError {
  /** Where the problem is: a parameter name, or a JSON path into the body. */
  path: string;
  message: string;
}

export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly title: string;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string> = {};

  constructor(detail: string, errors?: FieldError[]) {
    super(detail);
    this.name = new.target.name;
    this.errors = errors;
  }

  /** Problem type URI: a stable, documented name per kind of error. */
  get type(): string {
    return `urn:problem-type:${this.title.toLowerCase().replace(/\s+/g, '-')}`;
  }
}

export class BadRequestError extends AppError {
  readonly status = 400;
  readonly title = 'Bad Request';
}

export class UnauthorizedError extends AppError {
  readonly status = 401;
  readonly title = 'Unauthorized';
  constructor(detail = 'Authentication is required: the credential is missing or not valid.') {
    super(detail);
    this.headers['WWW-Authenticate'] = 'Bearer';
  }
}

export class ForbiddenError extends AppError {
  readonly status = 403;
  readonly title = 'Forbidden';
  constructor(detail = 'Your role does not allow this operation.') {
    super(detail);
  }
}

export class NotFoundError extends AppError {
  readonly status = 404;
  readonly title = 'Not Found';
}

export class ConflictError extends AppError {
  readonly status = 409;
  readonly title = 'Conflict';
}

/** What was asked for existed once and is gone for good (a change feed position that was purged). */
export class GoneError extends AppError {
  readonly status = 410;
  readonly title = 'Gone';
}

export class PayloadTooLargeError extends AppError {
  readonly status = 413;
  readonly title = 'Payload Too Large';
}

/** A body in a form the service does not read (a charset other than UTF-8, an unknown encoding). */
export class UnsupportedMediaTypeError extends AppError {
  readonly status = 415;
  readonly title = 'Unsupported Media Type';
}

export class TooManyRequestsError extends AppError {
  readonly status = 429;
  readonly title = 'Too Many Requests';
  constructor(detail: string, retryAfterSeconds: number) {
    super(detail);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export type StoreName = 'PostgreSQL' | 'Neo4j';

export class StoreUnavailableError extends AppError {
  readonly status = 503;
  readonly title = 'Service Unavailable';
  constructor(readonly store: StoreName) {
    super(`${store} is unavailable; try again later.`);
    this.headers['Retry-After'] = '5';
  }
}

/** Understood, but not done: a query that ran out of its time. */
export class UnprocessableContentError extends AppError {
  readonly status = 422;
  readonly title = 'Unprocessable Content';
}
