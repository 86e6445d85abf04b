// The bounded request against a real local HTTP peer that misbehaves in each way a device, a
// webhook or a model endpoint can: too large an answer (declared or not), one that trickles, one
// cut off mid-way, and no peer at all.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedRequest } from '../../src/platform/http/bounded-request.js';
import { closedPort } from '../support/outside-services.js';

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

let server: http.Server;
let handler: Handler;
let url: URL;
const closed: string[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    request.resume();
    response.on('close', () => closed.push(request.url ?? ''));
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const at = (path: string) => new URL(path, url);

it('answers the status, headers and body of a whole answer, and sends the body with its length', async () => {
  let received = '';
  handler = (request, response) => {
    let body = '';
    request.removeAllListeners('data');
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received = `${request.method} ${request.headers['content-length']} ${body}`;
      response.writeHead(201, { 'x-peer': 'yes' }).end('{"ok":true}');
    });
  };
  const answer = await boundedRequest({ url: at('/whole'), body: '{"a":1}', timeoutMs: 60_000, maxOctets: 100 });
  expect(answer).toMatchObject({ status: 201, text: '{"ok":true}', headers: { 'x-peer': 'yes' } });
  expect(received).toBe('POST 7 {"a":1}');
});

it('stops reading an answer that grows past the cap, and closes the connection', async () => {
  handler = (_request, response) => {
    response.writeHead(200);
    const write = () => {
      if (!response.destroyed && response.write('x'.repeat(1024))) setImmediate(write);
      else if (!response.destroyed) response.once('drain', write);
    };
    write();
  };
  expect(await boundedRequest({ url: at('/endless'), timeoutMs: 60_000, maxOctets: 64 * 1024 })).toEqual({ failure: 'TOO_LARGE' });
  await new Promise<void>((resolve) => { const poll = () => (closed.includes('/endless') ? resolve() : setTimeout(poll, 20)); poll(); });
});

it('refuses an answer whose declared length is past the cap without reading it', async () => {
  handler = (_request, response) => response.writeHead(200, { 'content-length': '1000000' }).write('x');
  expect(await boundedRequest({ url: at('/declared'), timeoutMs: 60_000, maxOctets: 1000 })).toEqual({ failure: 'TOO_LARGE' });
});

it('ends a request whose answer trickles at the time-out, however much has come', async () => {
  handler = (_request, response) => {
    response.writeHead(200);
    const timer = setInterval(() => response.write('x'), 10);
    response.on('close', () => clearInterval(timer));
  };
  expect(await boundedRequest({ url: at('/trickle'), timeoutMs: 300, maxOctets: 1024 * 1024 })).toEqual({ failure: 'TIMEOUT' });
});

it('reports an answer cut off before its end as interrupted', async () => {
  handler = (_request, response) => {
    response.writeHead(200, { 'content-length': '100' });
    response.write('only part', () => response.socket?.destroy());
  };
  expect(await boundedRequest({ url: at('/cut'), timeoutMs: 60_000, maxOctets: 1000 })).toMatchObject({ failure: 'INTERRUPTED' });
});

it('reports a peer that is not there with the network error code', async () => {
  expect(await boundedRequest({ url: new URL(`http://127.0.0.1:${await closedPort()}/`), timeoutMs: 60_000, maxOctets: 1000 })).toMatchObject({ failure: 'NETWORK', errno: 'ECONNREFUSED' });
});

it("rejects with what the caller's inspection throws, before reading the body", async () => {
  handler = (_request, response) => response.writeHead(200, { 'x-peer': 'changed' }).end('body');
  const refusal = new Error('not the peer we pinned');
  await expect(boundedRequest({
    url: at('/inspected'), timeoutMs: 60_000, maxOctets: 1000,
    inspect: (response) => { if (response.headers['x-peer'] === 'changed') throw refusal; },
  })).rejects.toBe(refusal);
});
