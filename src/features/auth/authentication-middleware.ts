// Who is calling: a bearer token (user token or integration key), an X-Integration-Api-Key, or a
// browser session cookie, in that order. A presented credential that is not valid is a 401 at
// once; no credential leaves the request anonymous for the per-operation check that follows the
// validator's route matching (authorization-middleware.ts).
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import { ConflictError } from '../../platform/errors.js';
import type { SessionStore } from '../../platform/http/session-store.js';
import type { Actor } from './audit-log.js';
import type { AuthService, SessionData as AuthSessionData } from './auth-service.js';
import type { Principal } from './roles.js';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}

declare module 'express-session' {
  interface SessionData {
    auth?: AuthSessionData;
  }
}

export const SESSION_COOKIE = 'inventory_session';

export interface SessionSettings {
  secret: string;
  idleMinutes: number;
  absoluteHours: number;
  cookiePath: string;
}

/** The session cookie's path: the context path, or the root without one. */
export function sessionCookiePath(contextPath: string): string {
  return contextPath || '/';
}

export function sessionMiddleware(store: SessionStore, settings: SessionSettings): RequestHandler {
  return session({
    name: SESSION_COOKIE,
    secret: settings.secret,
    store,
    resave: false,
    saveUninitialized: false,
    // Each request moves the idle time-out forward; the absolute one is checked on the session.
    rolling: true,
    unset: 'destroy',
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: 'auto',
      path: settings.cookiePath,
      maxAge: settings.idleMinutes * 60_000,
    },
  });
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The caller's address: Express's, from X-Forwarded-For when a trusted proxy sent the request,
 * which passes on whatever the client wrote there; text that is no address gives the proxy's own.
 */
export function clientIp(req: Request): string {
  return req.ip && net.isIP(req.ip) ? req.ip : (req.socket.remoteAddress ?? '');
}

export function actorOf(req: Request): Actor {
  const p = req.principal;
  const ip = clientIp(req);
  return p ? { kind: p.kind, id: p.id, name: p.name, ip } : { kind: 'ANONYMOUS', ip };
}

/** The calling user; an integration key, which is no user, is answered 409 for `what` (a user's own). */
export function userOf(req: Request, what: string): Principal {
  const p = req.principal;
  if (!p || p.kind !== 'USER') throw new ConflictError(`An integration key has no ${what}: it is not a user.`);
  return p;
}

export function authenticationMiddleware(auth: AuthService, sessions: RequestHandler, absoluteHours: number): RequestHandler {
  const absoluteMs = absoluteHours * 3_600_000;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const authorization = req.get('authorization');
      const keyHeader = req.get('x-integration-api-key');
      if (authorization !== undefined || keyHeader !== undefined) {
        const bearer = authorization !== undefined ? BEARER.exec(authorization)?.[1] : undefined;
        if (authorization !== undefined && !bearer) await auth.refuseToken(clientIp(req), 'malformed-authorization-header');
        if (bearer && keyHeader && bearer !== keyHeader) await auth.refuseToken(clientIp(req), 'two-different-credentials');
        req.principal = await auth.authenticateToken((bearer ?? keyHeader) as string, clientIp(req), !bearer);
        next();
        return;
      }
      sessions(req, res, async (error?: unknown) => {
        if (error) return next(error);
        try {
          const data = req.session?.auth;
          if (data) {
            const principal = Date.now() - data.authenticatedAt < absoluteMs ? await auth.principalForSession(data) : undefined;
            if (principal) req.principal = principal;
            else await new Promise<void>((resolve) => req.session.destroy(() => resolve()));
          }
          next();
        } catch (e) {
          next(e);
        }
      });
    } catch (error) {
      next(error);
    }
  };
}

/** Starts a new session for a signed-in user: a new id (no fixation) and a new CSRF token. */
export function beginSession(req: Request, userId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    req.session.regenerate((error) => {
      if (error) return reject(error);
      const csrfToken = randomBytes(24).toString('base64url');
      req.session.auth = { userId, csrfToken, authenticatedAt: Date.now() };
      req.session.save((saveError) => (saveError ? reject(saveError) : resolve(csrfToken)));
    });
  });
}

export function endSession(req: Request, res: Response, cookiePath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!req.session) return resolve();
    req.session.destroy((error) => {
      if (error) return reject(error);
      res.clearCookie(SESSION_COOKIE, { path: cookiePath, httpOnly: true, sameSite: 'lax' });
      resolve();
    });
  });
}
