// Text that the stores cannot hold is refused before anything runs: PostgreSQL's text and jsonb
// take no NUL (U+0000), and no store takes an unpaired UTF-16 surrogate. Let through, such a value
// reached the first write of its request (an audit row, a name) and failed there as a 500. So is
// a number beyond a double's range (1e309 parses as Infinity): JSON has no form for it, and it
// was kept as null.
import type { RequestHandler } from 'express';
import { BadRequestError } from '../errors.js';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

interface Unstorable {
  path: string;
  what: string;
  message: string;
}

const TEXT = { what: 'a NUL character (U+0000) or an unpaired surrogate: text that cannot be stored', message: 'unstorable text' };
const NUMBER = { what: 'a number beyond the range of a double (such as 1e309), which JSON cannot hold', message: 'number out of range' };

/** The first string (or key) or number in `value` that cannot be stored; iterative, so that deep nesting costs no stack. */
function firstUnstorable(value: unknown, root: string): Unstorable | undefined {
  const pending: [unknown, string][] = [[value, root]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      if (UNSTORABLE.test(item)) return { path, ...TEXT };
    } else if (typeof item === 'number') {
      if (!Number.isFinite(item)) return { path, ...NUMBER };
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        if (UNSTORABLE.test(key)) return { path, ...TEXT };
        pending.push([child, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

export function unstorableTextGuard(): RequestHandler {
  return (req, _res, next) => {
    const found = firstUnstorable(req.query, 'query') ?? firstUnstorable(req.body, 'body');
    if (!found) return next();
    next(new BadRequestError(`${found.path} holds ${found.what}.`, [{ path: found.path, message: found.message }]));
  };
}
