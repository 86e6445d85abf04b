// The benchmark's reference for the per-request overhead: the service's own reads of three cheap
// lists (its read models and repositories, row mapping included) behind a bare node:http handler,
// in a process of its own as the service is, without Express, the validator, authentication,
// links or logging. Beside the service and the bare reads it tells what HTTP alone costs on the
// machine, so that the service's overhead is read against what any HTTP server would pay.
// Run as `node dist/tools/bench/reference-http.js DATA_DIR`; it prints its port once it listens.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Container } from '../../container.js';
import { countsTotal, relationshipKey } from '../../features/relationships/relationship-row.js';
import { pageWindow, windowed, type PageRequest } from '../../platform/http/pagination.js';
import { withStores } from './support.js';

/** The paths the reference serves, for the benchmark's requests. */
export const REFERENCE_PATHS = { assets: '/assets', runs: '/runs', relationships: '/relationships/managed-by' } as const;

const FIRST_PAGE: PageRequest = { page: 0, size: 50 };

/** The reads by path: each answers what the service's route gives its envelope. */
function reads(container: Container): Record<string, () => Promise<{ data: unknown[]; total: number }>> {
  return {
    [REFERENCE_PATHS.assets]: async () => {
      const { rows, total } = await container.assetReadModel.page({}, { field: 'displayName', direction: 'asc' }, FIRST_PAGE);
      return { data: rows, total };
    },
    [REFERENCE_PATHS.runs]: async () => {
      const { page, total } = await container.discovery.list({}, FIRST_PAGE);
      return { data: page.rows, total };
    },
    [REFERENCE_PATHS.relationships]: async () => {
      const window = pageWindow(FIRST_PAGE);
      const { rows, counts } = await container.relationships.pageAndCounts({ types: ['MANAGED_BY'], activeOnly: true }, window);
      return { data: windowed(window, rows, relationshipKey).rows, total: countsTotal(counts) };
    },
  };
}

async function serve(dataDir: string): Promise<void> {
  await withStores(dataDir, async (container) => {
    const byPath = reads(container);
    const server = http.createServer((req, res) => {
      const read = byPath[req.url ?? ''];
      if (!read) {
        res.writeHead(404).end();
        return;
      }
      read().then(
        (body) => {
          const text = JSON.stringify(body);
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
        },
        (error: unknown) => {
          process.stderr.write(`reference: ${String(error)}\n`);
          res.writeHead(500).end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
    // Until the benchmark ends it (SIGTERM), then the stores are closed by withStores.
    await new Promise<void>((resolve) => process.once('SIGTERM', resolve));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}

// Serves when run as the entry, not when the benchmark imports the paths.
if (process.argv[1] === fileURLToPath(import.meta.url)) void serve(process.argv[2] as string);
