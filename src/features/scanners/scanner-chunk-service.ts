// What a remote scanner asks of the service, as the scanner it is: its token names it, its group
// says which runs' chunks it takes (discovery's RemoteChunkService holds the chunks). A claim
// waits (a long poll) for a chunk of the group, a bounded number at once per process; an end
// counts the chunk to the scanner in the transaction that ends it.
import { TooManyRequestsError } from '../../platform/errors.js';
import type { Principal } from '../auth/roles.js';
import { scannerLeaseKey, type Pin, type PinKind, type RemoteChunkService, type RemoteScanner, type ReportState, type ScannerChunk, type ScannerReport } from '../discovery/remote-chunk-service.js';
import type { ScannerService } from './scanner-service.js';
import type { ScannerStore } from './scanner-store.js';

export interface ScannerChunkSettings {
  /** Claims waiting at once in this process; beyond, 429. */
  maxWaiting: number;
  /** How often a waiting claim looks for a chunk. */
  pollMs: number;
}

export class ScannerChunkService {
  private waiting = 0;

  constructor(
    private readonly scanners: ScannerService,
    private readonly store: ScannerStore,
    private readonly chunks: RemoteChunkService,
    private readonly settings: ScannerChunkSettings,
    private readonly refused: () => void,
  ) {}

  private async scannerOf(principal: Principal, version?: string): Promise<RemoteScanner & { id: string }> {
    const scanner = await this.scanners.identify(principal, version);
    return { id: scanner.id, name: scanner.name, group: scanner.group, worker: scannerLeaseKey(scanner.id) };
  }

  /** The next chunk of the scanner's group, waiting up to `waitSeconds` for one (or until `signal`: the scanner went away); undefined when none came. */
  async claim(principal: Principal, version: string, waitSeconds: number, signal: AbortSignal): Promise<ScannerChunk | undefined> {
    const scanner = await this.scannerOf(principal, version);
    if (this.waiting >= this.settings.maxWaiting) {
      this.refused();
      throw new TooManyRequestsError('Too many scanners are waiting for chunks in this process; try again shortly.', 5);
    }
    this.waiting++;
    try {
      const until = Date.now() + waitSeconds * 1000;
      for (;;) {
        const chunk = await this.chunks.claim(scanner);
        if (chunk || Date.now() >= until || signal.aborted) return chunk;
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, Math.min(this.settings.pollMs, until - Date.now()));
          signal.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
        });
        // A scanner gone meanwhile takes nothing (its chunk would wait for the lease).
        if (signal.aborted) return undefined;
      }
    } finally {
      this.waiting--;
    }
  }

  async report(principal: Principal, chunkId: string, report: ScannerReport): Promise<ReportState> {
    const scanner = await this.scannerOf(principal);
    return this.chunks.report(scanner, chunkId, report, (trx) => this.store.countChunk(scanner.id, trx));
  }

  async pin(principal: Principal, chunkId: string, attempt: number, kind: PinKind, address: string, port: number, seen: Pin): Promise<Pin | undefined> {
    return this.chunks.pin(await this.scannerOf(principal), chunkId, attempt, kind, address, port, seen);
  }

  async countHost(principal: Principal, chunkId: string, attempt: number, method: string): Promise<number> {
    return this.chunks.countHost(await this.scannerOf(principal), chunkId, attempt, method);
  }
}
