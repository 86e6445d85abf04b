// Text that the stores cannot hold is refused before anything runs: PostgreSQL's text and jsonb
// take no NUL (U+0000), and no store takes an unpaired UTF-16 surrogate. Let through, such a value
// reached the first write of its request (an audit row, a name) and failed there as a 500.
import type { RequestHandler } from 'express';
import { BadRequestError } from '../errors.js';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (or key) in `value` that cannot be stored; iterative, so that deep nesting costs no stack. */
function firstUnstorable(value: unknown, root: string): string | undefined {
  const pending: [unknown, string][] = [[value, root]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      if (UNSTORABLE.test(item)) return path;
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        if (UNSTORABLE.test(key)) return path;
        pending.push([child, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

export function unstorableTextGuard(): RequestHandler {
  return (req, _res, next) => {
    const path = firstUnstorable(req.query, 'query') ?? firstUnstorable(req.body, 'body');
    if (!path) return next();
    next(new BadRequestError(`${path} holds a NUL character (U+0000) or an unpaired surrogate: text that cannot be stored.`, [{ path, message: 'unstorable text' }]));
  };
}
