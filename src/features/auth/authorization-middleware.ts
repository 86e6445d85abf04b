// What the caller may do: api.yaml says per operation whether it is public (security: []) and
// which roles it admits (x-required-roles; absent means any signed-in principal), or that it is
// made for remote scanners (x-principal: SCANNER), which call nothing else. Session callers
// must also send their CSRF token on unsafe methods. Runs after the validator matched the route
// and before it validates the request, so a stranger learns nothing from validation errors.
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../../platform/errors.js';
import { allows, type Role } from './roles.js';

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

interface Operation {
  security?: unknown[];
  'x-required-roles'?: Role[];
  'x-principal'?: 'SCANNER';
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function authorizationMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const operation = (req as Request & { openapi?: { schema?: Operation } }).openapi?.schema;
  if (!operation || (Array.isArray(operation.security) && operation.security.length === 0)) return next();
  const principal = req.principal;
  if (!principal) return next(new UnauthorizedError());
  if ((operation['x-principal'] === 'SCANNER') !== (principal.kind === 'SCANNER')) {
    return next(new ForbiddenError(principal.kind === 'SCANNER' ? 'A scanner token admits only the operations of remote scanners.' : 'This operation is for remote scanners (a svcs_ token).'));
  }
  const admitted = operation['x-required-roles'];
  if (admitted && !allows(principal, admitted)) return next(new ForbiddenError());
  if (principal.method === 'SESSION' && !SAFE_METHODS.has(req.method)) {
    const sent = req.get(CSRF_HEADER);
    if (!sent || !principal.csrfToken || !sameToken(sent, principal.csrfToken)) {
      return next(new ForbiddenError('A CSRF token is required: send the X-CSRF-Token header given at sign-in.'));
    }
  }
  next();
}
