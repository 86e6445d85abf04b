// The response check (the setting validateResponses, on in every test of the service) behind the
// real request validator and problem handler, on a small document: an answer that api.yaml allows
// passes unchanged; one that strays (a field of the wrong type, a missing one, a status the
// document does not list, a body where it has none) becomes a logged 500; answers of 500 and
// above, and those not written by res.json, are not checked.
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Server } from 'node:http';
import { createLogger } from '../../src/platform/logger.js';
import { openApiValidator, type OpenApiDocument } from '../../src/platform/http/openapi.js';
import { problemHandler } from '../../src/platform/http/problem-handler.js';
import { Writable } from 'node:stream';

const thing = { type: 'object', required: ['id', 'size'], additionalProperties: false, properties: { id: { type: 'string', format: 'uuid' }, size: { type: 'integer', minimum: 0 }, note: { type: 'string', nullable: true } } };
const problem = { type: 'object', required: ['status'], properties: { status: { type: 'integer' } } };
const DOC = {
  openapi: '3.0.3',
  info: { title: 'test', version: '1' },
  servers: [{ url: '/inventory' }],
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'the thing', content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/Thing' } } } } } },
          '204': { description: 'nothing' },
          '4XX': { $ref: '#/components/responses/Problem' },
        },
      },
    },
  },
  components: {
    schemas: { Thing: thing },
    responses: { Problem: { description: 'a problem', content: { 'application/problem+json': { schema: problem } } } },
  },
} as unknown as OpenApiDocument;

const ID = '0b7c9a52-3c1e-4d0f-9a64-2f8e5c1d7a10';
let server: Server;
let base: string;
const logged: string[] = [];
/** What the handler answers, per test. */
let answer: (res: express.Response) => void;

beforeAll(async () => {
  const app = express();
  const sink = new Writable({ write(chunk: Buffer, _e, done) { logged.push(chunk.toString()); done(); } });
  // Mounted at a context path, as app.ts mounts the service's routes.
  const routes = express.Router();
  routes.use(openApiValidator(DOC, { validateResponses: true, contextPath: '/inventory' }, []));
  routes.get('/things/:id', (_req, res) => answer(res));
  app.use('/inventory', routes);
  app.use(problemHandler(createLogger('info', sink)));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/inventory`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function get(): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}/things/${ID}`);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

it('passes an answer that the document allows, unchanged', async () => {
  const body = { data: { id: ID, size: 3, note: null } };
  answer = (res) => res.json(body);
  expect(await get()).toEqual({ status: 200, body });
  answer = (res) => res.status(204).end();
  expect((await get()).status).toBe(204);
  answer = (res) => res.status(404).type('application/problem+json').json({ status: 404 });
  expect(await get()).toEqual({ status: 404, body: { status: 404 } });
});

it.each([
  ['a field of the wrong type', (res: express.Response) => res.json({ data: { id: ID, size: 'three' } }), /\/data\/size must be integer/],
  ['a missing field', (res: express.Response) => res.json({ data: { id: ID } }), /\/data must have required property 'size'/],
  ['a field the schema does not have', (res: express.Response) => res.json({ data: { id: ID, size: 1, colour: 'red' } }), /must NOT have additional properties \(colour\)/],
  ['a value outside its format', (res: express.Response) => res.json({ data: { id: 'urn:uuid:1', size: 1 } }), /\/data\/id must match format \\"uuid\\"/],
  ['a status the document does not list', (res: express.Response) => res.status(201).json({ data: { id: ID, size: 1 } }), /documents no response 201 for GET \/things\/\{id\}/],
  ['a body where the document has none', (res: express.Response) => res.status(204).json({ data: { id: ID, size: 1 } }), /response 204 of GET \/things\/\{id\} has no body/],
  ['a problem of the wrong shape (a 4XX by reference)', (res: express.Response) => res.status(409).type('application/problem+json').json({ status: 'conflict' }), /response 409 of GET \/things\/\{id\} does not match api.yaml: \/status must be integer/],
])('answers %s with a 500, and logs what was wrong', async (_case, wrong, reason) => {
  answer = wrong;
  logged.length = 0;
  const { status, body } = await get();
  expect(status).toBe(500);
  expect(body).toMatchObject({ status: 500, title: 'Internal Server Error' });
  expect(logged.join('\n')).toMatch(reason);
});

it('leaves answers of 500 and above, and those not written by res.json, to their writer', async () => {
  answer = (res) => res.status(503).json({ anything: true });
  expect(await get()).toEqual({ status: 503, body: { anything: true } });
  answer = (res) => res.type('text/csv').send('a,b\n');
  const response = await fetch(`${base}/things/${ID}`);
  expect([response.status, await response.text()]).toEqual([200, 'a,b\n']);
});
