// A logger whose JSON lines are kept, parsed, for a test to read (no store, no service).
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/platform/logger.js';

export function captureLogs(level = 'debug'): { lines: Record<string, unknown>[]; logger: Logger } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger(level, stream) };
}
