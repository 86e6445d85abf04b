// The scanner role: a process in a remote network that holds no store and no credential of its
// own. It asks the service (service.scanner.url, with its token) for the chunks of its group's
// runs in a long poll, one chunk at a time, scans each with the central workers' ChunkScanner and
// connectors (the credentials the chunk brought, for it alone, in memory only), and reports what
// it found to the service, which keeps it as a worker's progress and loads the run. While the
// service cannot be reached it waits longer each time (up to service.scanner.retry-max-ms); a
// chunk it held meanwhile, or at its own stop, returns to the queue when its lease expires, and
// its next attempt scans only what was not reported. A refused token (revoked) stops it.
import { readFileSync } from 'node:fs';
import type { AppConfig } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import { Metrics } from '../../platform/metrics.js';
import { fromProjectRoot } from '../../platform/project-root.js';
import { chunkScanSettings } from '../discovery/chunk-scan-settings.js';
import type { InventoryMethod } from '../discovery/connectors/registry.js';
import { chunkCredentials, type RunCredentials } from '../discovery/credential-offer.js';
import { ChunkScanner } from '../discovery/discovery-runner.js';
import type { ScannerChunk } from '../discovery/remote-chunk-service.js';
import { expandAddresses, parseAddress, type ParsedAddress } from '../discovery/target-addresses.js';
import { HttpChunkLink, type Backoff } from './http-chunk-link.js';
import { ScannerClient, ScannerRefusedError, ServiceUnavailableError } from './scanner-client.js';

export type ScannerOutcome = 'STOPPED' | 'REFUSED';

export interface RunningScanner {
  /** Settles when the scanner has stopped: REFUSED when the service refused its token. */
  done: Promise<ScannerOutcome>;
  /** Stops claiming; a chunk in hand is left to its lease. */
  stop(): Promise<void>;
}

/** host:port of the service, which the scanner never probes. */
function serviceEndpoint(url: string): Set<string> {
  const { hostname, port, protocol } = new URL(url);
  return new Set([`${hostname.replace(/^\[|\]$/g, '')}:${port || (protocol === 'https:' ? '443' : '80')}`]);
}

function version(): string {
  return (JSON.parse(readFileSync(fromProjectRoot('package.json'), 'utf8')) as { version: string }).version;
}

export function startScanner(config: AppConfig, logger: Logger): RunningScanner {
  const url = config.scannerUrl as string;
  const ownVersion = version();
  const client = new ScannerClient(url, config.scannerToken as string, ownVersion);
  // The scanner serves no /metrics; the sweep engine counts into a registry of its own.
  const scanner = new ChunkScanner(chunkScanSettings(config, new Metrics(), logger, serviceEndpoint(url)), logger);
  const backoff: Backoff = (attempt) => Math.min(config.scannerRetryMaxMs, 1000 * 2 ** Math.min(attempt - 1, 20));
  const stopping = new AbortController();
  logger.info('scanner started', { service: url, version: ownVersion });

  const scan = async (chunk: ScannerChunk): Promise<HttpChunkLink> => {
    const addresses = new Set(expandAddresses(chunk.entries.map((e) => parseAddress(e) as ParsedAddress)));
    const link = new HttpChunkLink(client, chunk, addresses, backoff, logger);
    const credentials = new Map<InventoryMethod, RunCredentials>(chunk.credentials.map((given) => [given.method, chunkCredentials(given)]));
    logger.info('scanning a chunk', { runId: chunk.runId, chunk: chunk.seq, attempt: chunk.attempt, addresses: addresses.size, done: chunk.done.length });
    try {
      await scanner.scan({ entries: chunk.entries, done: new Set(chunk.done), target: chunk.target, credentials }, link, { config, hostState: link.pins() });
    } catch (error) {
      // What the scan reported is kept; the rest is the next attempt's when the lease expires.
      logger.warn('the scan of a chunk stopped on an unexpected error; the chunk is left to its lease', { runId: chunk.runId, chunk: chunk.seq, error });
    }
    return link;
  };

  const run = async (): Promise<ScannerOutcome> => {
    for (let failures = 0; !stopping.signal.aborted;) {
      let chunk: ScannerChunk | undefined;
      try {
        chunk = await client.claim(config.scannerWaitSeconds, stopping.signal);
        failures = 0;
      } catch (error) {
        if (stopping.signal.aborted) break;
        if (error instanceof ScannerRefusedError) return refused(error.message);
        if (!(error instanceof ServiceUnavailableError)) throw error;
        const wait = backoff(++failures);
        logger.warn('the service cannot be reached; the scanner asks again later', { inMs: wait, error: error.message });
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      if (!chunk) continue;
      const link = await scan(chunk);
      if (link.refused) return refused('a report was refused');
    }
    return 'STOPPED';
  };
  const refused = (reason: string): ScannerOutcome => {
    logger.error('the service refused the scanner token (revoked, or not a scanner\'s): the scanner stops', { reason });
    return 'REFUSED';
  };

  const done = run();
  return {
    done,
    stop: async () => {
      stopping.abort();
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 1000))]);
    },
  };
}
