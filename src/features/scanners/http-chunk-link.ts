// A chunk a remote scanner took, as its scan (discovery's ChunkScanner) sees it: reports, host
// counts and pins go to the service's scanner operations at the chunk's attempt. What the service
// may be briefly unable to answer is tried again, within the chunk's lease (past it the chunk is
// another attempt's). A refused token or a refused report ends the scan of the chunk at once
// (LOST): the scanner then stops, or leaves the chunk to its lease.
import type { Logger } from '../../platform/logger.js';
import type { ChunkLink } from '../discovery/discovery-runner.js';
import type { Pin, PinKind, ReportState, ScannerChunk, ScannerReport } from '../discovery/remote-chunk-service.js';
import type { AddressResult } from '../discovery/observation-bundle.js';
import { ScannerRefusedError, ScannerRequestError, ServiceUnavailableError, type ScannerClient } from './scanner-client.js';

export interface Backoff {
  /** The wait before try `n` (from 1) after a failed one. */
  (attempt: number): number;
}

type Remembered = NonNullable<ScannerReport['remembered']>[number];
type ChunkState = Awaited<ReturnType<ChunkLink['save']>>;

export class HttpChunkLink implements ChunkLink {
  /** Credentials that worked, sent with the report that holds their address's result (the service checks that). */
  private remembered: Remembered[] = [];
  /** The service refused the scanner's token: the scanner stops. */
  refused = false;

  constructor(
    private readonly client: ScannerClient,
    private readonly chunk: ScannerChunk,
    /** The chunk's addresses as its entries list them. */
    private readonly addresses: Set<string>,
    private readonly backoff: Backoff,
    private readonly logger: Logger,
  ) {}

  async save(results: { address: string; result: AddressResult }[]): Promise<ChunkState> {
    const named = new Set([...results.map((r) => r.result.address)]);
    const remembered = this.remembered.filter((r) => this.addresses.has(r.address) || named.has(r.address));
    // Not tried again here: the scan keeps the results of a report that got no answer for its next one.
    const state = await this.answer(() => this.client.report(this.chunk.id, { attempt: this.chunk.attempt, results, ...(remembered.length ? { remembered } : {}) }), 'report', false);
    if (state === undefined) return 'LOST';
    this.remembered = this.remembered.filter((r) => !remembered.includes(r));
    // ENDED answers only an end.
    return state === 'ENDED' ? 'LOST' : state;
  }

  async countHost(method: string): Promise<number> {
    const before = await this.answer(() => this.client.countHost(this.chunk.id, this.chunk.attempt, method), 'host count');
    if (before === undefined) throw new Error('The chunk is no longer this scanner\'s.');
    return before;
  }

  async remember(address: string, method: string, credentialId: string): Promise<void> {
    this.remembered.push({ address, method: method as Remembered['method'], credentialId });
  }

  async end(_status: 'DONE' | 'CANCELLED', credentialsTried: string[]): Promise<void> {
    // The service knows whether the run stopped: it ends the chunk DONE or CANCELLED by its own state.
    // Every result was reported by now, and the credentials remembered with it; what is left may name only the chunk's own addresses.
    const remembered = this.remembered.filter((r) => this.addresses.has(r.address));
    const report: ScannerReport = { attempt: this.chunk.attempt, results: [], ...(remembered.length ? { remembered } : {}), end: { credentialsTried } };
    const state: ReportState | undefined = await this.answer(() => this.client.report(this.chunk.id, report), 'end');
    if (state !== 'ENDED') this.logger.warn('the chunk was not ended by this scanner: its lease passed to another attempt', { runId: this.chunk.runId, chunk: this.chunk.seq, attempt: this.chunk.attempt, state: state ?? 'LOST' });
  }

  /** The pins of hosts' keys, kept by the service, for the connectors. */
  pins(): { pinOrCompare(kind: PinKind, address: string, port: number, seen: Pin): Promise<Pin | undefined> } {
    return {
      pinOrCompare: async (kind, address, port, seen) => {
        const answer = await this.answer(async () => ({ pinned: await this.client.pin(this.chunk.id, this.chunk.attempt, kind, address, port, seen) }), 'pin');
        if (answer === undefined) throw new Error('The chunk is no longer this scanner\'s: its host keys are not checked here.');
        return answer.pinned;
      },
    };
  }

  /**
   * The service's answer, tried again while it cannot answer and the lease may still hold;
   * undefined when the chunk is lost to this scanner (its token refused, the request refused, or
   * the lease run out meanwhile).
   */
  private async answer<T>(request: () => Promise<T>, what: string, retry = true): Promise<T | undefined> {
    const until = Date.now() + this.chunk.leaseMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await request();
      } catch (error) {
        if (error instanceof ScannerRefusedError) {
          this.refused = true;
          return undefined;
        }
        if (error instanceof ScannerRequestError) {
          // 409: the chunk is another attempt's now; anything else: the service will refuse it again.
          if (error.status !== 409) this.logger.error('the service refused a request of the scanner; the chunk is left to its lease', { runId: this.chunk.runId, chunk: this.chunk.seq, what, error: error.message });
          return undefined;
        }
        if (!(error instanceof ServiceUnavailableError) || !retry) throw error;
        const wait = this.backoff(attempt);
        if (Date.now() + wait >= until) return undefined;
        this.logger.warn('the service did not answer the scanner; trying again', { what, inMs: wait, error: error.message });
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
}
