// winston JSON logs. Every line written while a request is being served carries its request id
// (kept in AsyncLocalStorage), and values under secret-looking keys are redacted wherever they
// appear in the metadata.
import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';

export type Logger = winston.Logger;

interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

const SECRET_KEY = /pass(word|phrase)?|secret|token|authorization|cookie|api[-_]?key|private[-_]?key|community|credential|webhook|^key$/i;
const REDACTED = '[redacted]';

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(code ? { code } : {}), stack: value.stack };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : redact(v, depth + 1);
  return out;
}

const redactSecrets = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'message') continue;
    info[key] = SECRET_KEY.test(key) ? REDACTED : redact(info[key]);
  }
  return info;
});

const addRequestId = winston.format((info) => {
  const ctx = requestContext.getStore();
  if (ctx && info.requestId === undefined) info.requestId = ctx.requestId;
  return info;
});

export function createLogger(level: string, stream?: NodeJS.WritableStream): Logger {
  const transport = stream
    ? new winston.transports.Stream({ stream })
    : new winston.transports.Console({ stderrLevels: [] });
  return winston.createLogger({
    level,
    format: winston.format.combine(
      addRequestId(),
      redactSecrets(),
      winston.format.timestamp(),
      winston.format.json(),
    ),
    transports: [transport],
  });
}
