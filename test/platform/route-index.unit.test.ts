// The route index that puts the feature routers behind one lookup: a request reaches the same
// route it would reach through the routers mounted one after another (Express's matching: any
// case, a trailing slash), in the order they were given, and a router whose routes start with a
// pattern is tried for every path. Real Express routers, served over HTTP.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { Router } from 'express';
import { routeIndex } from '../../src/platform/http/route-index.js';

function router(name: string, paths: string[], passOn: string[] = []): Router {
  const r = Router();
  for (const path of paths) {
    r.get(path, (req, res, next) => (passOn.includes(path) ? next() : res.json({ router: name, path, params: req.params })));
  }
  return r;
}

describe('routeIndex', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    const mounted = express.Router();
    mounted.use(routeIndex([
      router('things', ['/api/v1/things', '/api/v1/things/:id'], ['/api/v1/things/:id']),
      router('patterns', ['/api/:version/widgets']),
      router('more-things', ['/api/v1/things/:id', '/api/v1/things/:id/parts']),
      router('health', ['/health', '/health/ready']),
    ]));
    app.use('/ctx', mounted);
    app.use((_req, res) => res.status(404).json({ router: null }));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ctx`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`);
    return { status: res.status, body: (await res.json()) as { router: string | null; path?: string; params?: Record<string, string> } };
  };

  it('reaches the route of the first router that answers, under the mount path', async () => {
    expect(await get('/api/v1/things')).toEqual({ status: 200, body: { router: 'things', path: '/api/v1/things', params: {} } });
    // The first router passes this one on: the next router with the same key answers.
    expect(await get('/api/v1/things/7')).toEqual({ status: 200, body: { router: 'more-things', path: '/api/v1/things/:id', params: { id: '7' } } });
    expect(await get('/api/v1/things/7/parts')).toEqual({ status: 200, body: { router: 'more-things', path: '/api/v1/things/:id/parts', params: { id: '7' } } });
    expect((await get('/health')).body.path).toBe('/health');
    expect((await get('/health/ready')).body.path).toBe('/health/ready');
  });

  it('matches as Express does: any case, one trailing slash', async () => {
    expect((await get('/API/V1/Things')).body).toMatchObject({ router: 'things', path: '/api/v1/things' });
    expect((await get('/api/v1/things/')).body).toMatchObject({ router: 'things', path: '/api/v1/things' });
    expect((await get('/Health/Ready/')).body).toMatchObject({ router: 'health', path: '/health/ready' });
  });

  it('tries a router whose routes start with a pattern for every path', async () => {
    expect((await get('/api/v2/widgets')).body).toEqual({ router: 'patterns', path: '/api/:version/widgets', params: { version: 'v2' } });
    expect((await get('/api/v1/widgets')).body).toMatchObject({ router: 'patterns' });
  });

  it('passes on what no router answers', async () => {
    for (const path of ['/api/v1/nothing', '/api/v1/things/7/other', '//api/v1/things', '/']) {
      expect(await get(path)).toEqual({ status: 404, body: { router: null } });
    }
  });
});
