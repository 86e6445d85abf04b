import { requestContext } from '../../src/platform/logger.js';
import { captureLogs } from '../support/log-capture.js';

describe('logger', () => {
  it('writes JSON lines that carry the request id of the request being served', async () => {
    const { lines, logger } = captureLogs();
    requestContext.run({ requestId: 'req-42' }, () => logger.child({ module: 'x' }).info('inside'));
    logger.info('outside');
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({ message: 'inside', requestId: 'req-42', module: 'x', level: 'info' });
    expect(lines[1]?.requestId).toBeUndefined();
  });

  it('redacts values under secret-looking keys, at any depth, and serialises errors', async () => {
    const { lines, logger } = captureLogs();
    const error = Object.assign(new Error('boom'), { code: 'E42' });
    logger.warn('with secrets', {
      password: 'p4ss',
      headers: { authorization: 'Bearer svcm_abc', cookie: 'sid=1' },
      nested: [{ privateKey: '-----BEGIN', community: 'public', ok: 'visible' }],
      error,
    });
    await new Promise((r) => setImmediate(r));
    const text = JSON.stringify(lines[0]);
    for (const secret of ['p4ss', 'svcm_abc', 'sid=1', '-----BEGIN', '"public"']) expect(text).not.toContain(secret);
    expect(text).toContain('visible');
    expect(lines[0]?.error).toMatchObject({ name: 'Error', message: 'boom', code: 'E42' });
  });
});
