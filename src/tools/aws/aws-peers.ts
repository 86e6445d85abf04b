// The AWS services that do run here, started in-process by a test: S3 through s3rver (an
// S3-compatible server; buckets kept in a directory, so that a restart on the same port finds them)
// and DynamoDB through dynalite, one per region (dynalite has no regions of its own; the double
// forwards /dynamodb/<region>/ to the region's one). Neither package ships types: the little of
// them used here is typed below.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

interface S3rverServer {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: { port: number; address: string; directory: string; silent: boolean; configureBuckets?: { name: string }[] }) => S3rverServer;
interface DynaliteServer {
  listen(port: number, host: string, done: () => void): void;
  address(): AddressInfo;
  close(done: () => void): void;
}
type Dynalite = (options: { createTableMs: number; deleteTableMs: number; updateTableMs: number }) => DynaliteServer;

const require = createRequire(import.meta.url);
const s3rverClass = require('s3rver') as S3rverClass;
// s3rver checks each request's signature against the keys of its one account (S3RVER by default).
const s3rverAccount = (require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } }).DUMMY_ACCOUNT;
const dynalite = require('dynalite') as Dynalite;

export interface S3Peer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port and directory (after stop). */
  restart(): Promise<void>;
  remove(): Promise<void>;
}

/** s3rver on `port` (0: any free one) with `buckets`, accepting the access keys `keys` (id to secret). */
export async function startS3(port: number, buckets: string[], keys: Record<string, string>): Promise<S3Peer> {
  for (const [id, secret] of Object.entries(keys)) s3rverAccount.createKeyPair(id, secret);
  const directory = mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const make = (at: number, configureBuckets?: { name: string }[]) => new s3rverClass({ port: at, address: '127.0.0.1', directory, silent: true, ...(configureBuckets ? { configureBuckets } : {}) });
  let server = make(port, buckets.map((name) => ({ name })));
  const bound = (await server.run()).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    stop: () => server.close(),
    restart: async () => {
      server = make(bound);
      await server.run();
    },
    remove: async () => {
      await server.close().catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A dynalite per region, in memory: its URL by region. */
export async function startDynamoDb(regions: string[]): Promise<{ urls: Record<string, string>; stop(): Promise<void> }> {
  const servers = await Promise.all(regions.map(async (region) => {
    const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return [region, server] as const;
  }));
  return {
    urls: Object.fromEntries(servers.map(([region, s]) => [region, `http://127.0.0.1:${s.address().port}`])),
    stop: async () => {
      await Promise.all(servers.map(([, s]) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}
