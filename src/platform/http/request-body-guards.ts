// Bodies the service reads only in one form: JSON in UTF-8 (RFC 8259 allows no other charset on
// the wire between systems), nested no deeper than any document of api.yaml needs. Deeper nesting
// gives the code that walks a document recursively (an import's custom attributes) nothing to
// overflow its stack on. Bytes that are no UTF-8 are refused rather than read as U+FFFD: the
// service would otherwise keep text that the client never sent.
import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { BadRequestError, UnsupportedMediaTypeError } from '../errors.js';

export const MAX_BODY_DEPTH = 64;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** 415 for a body declared in a charset other than UTF-8, before anything reads it. */
export function utf8BodiesOnly(): RequestHandler {
  return (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (!hasBody || charset === undefined || charset === 'utf-8' || charset === 'utf8') return next();
    next(new UnsupportedMediaTypeError(`The request body's charset ${JSON.stringify(charset.slice(0, 40))} is not supported: send UTF-8.`));
  };
}

/** The error type (body-parser's `type`) of a body that is no UTF-8; the problem handler maps it. */
export const NOT_UTF8 = 'entity.not.utf8';

/** express.json, refusing a body whose bytes are no UTF-8 (after any Content-Encoding is undone). */
export function jsonBodies(limit: string): RequestHandler {
  return express.json({
    limit,
    verify: (_req, _res, bytes) => {
      if (!isUtf8(bytes)) throw Object.assign(new Error('The request body is not valid UTF-8.'), { status: 400, type: NOT_UTF8 });
    },
  });
}

/** The depth of the deepest value of a parsed body, walked without recursion; stops past `limit`. */
function depthBeyond(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}

/** 400 for a JSON body nested deeper than MAX_BODY_DEPTH. */
export function bodyDepthGuard(): RequestHandler {
  return (req, _res, next) => {
    if (!depthBeyond(req.body, MAX_BODY_DEPTH)) return next();
    next(new BadRequestError(`The request body is nested deeper than ${MAX_BODY_DEPTH} levels.`, [{ path: 'body', message: `nested deeper than ${MAX_BODY_DEPTH} levels` }]));
  };
}
