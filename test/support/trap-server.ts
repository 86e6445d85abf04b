// A local HTTP server that counts the requests it gets: what must never reach the network (LOAD CSV
// over http) is pointed at it, and its count must stay 0.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TrapServer {
  /** A CSV file's URL on it. */
  url: string;
  hits(): number;
  close(): Promise<void>;
}

export async function startTrapServer(): Promise<TrapServer> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits += 1;
    res.end('a,b\n1,2\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/leak.csv`,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
