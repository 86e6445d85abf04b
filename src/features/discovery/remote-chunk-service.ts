// The chunks of the runs of scanner groups as remote scanners take them (their identity, the long
// poll and their records are the scanners feature's), each request naming the chunk by its id
// and attempt (the lease's identity): a claim (a long poll for the next chunk of its group, with
// the target's methods and settings and the credentials that chunk's addresses may be offered,
// and no other), its reports (results kept as a central worker keeps them, each record checked
// first and a malformed one left out: reported-result.ts; the lease renewed; the answer whether to
// go on), and the two things a scan asks of the store on the way (a pin of a host's key, the count
// of a method's hosts in the run). A report retried after a restart of either side is applied
// once: results are kept per address, and an end is recognised by the attempt that made it. The
// last chunk's end queues the run's job, whose worker loads the run.
import type { Knex } from 'knex';
import { BadRequestError, ConflictError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { Scheduler } from '../../platform/scheduler/scheduler.js';
import { INVENTORY_METHODS } from './connectors/registry.js';
import type { ChunkCredentials, CredentialOffer } from './credential-offer.js';
import { CHUNK_JOB } from './discovery-service.js';
import type { HostStateStore, Pin, PinKind } from './host-state-store.js';

export type { Pin, PinKind };
import type { AddressResult } from './observation-bundle.js';
import { checkedResult } from './reported-result.js';
import { SCANNER_PREFIX, type ChunkHolder, type RunChunk, type RunStore } from './run-store.js';
import { expandAddresses, parseAddress, type ParsedAddress } from './target-addresses.js';
import type { TargetLookup, TargetRecord } from './target-record.js';

/** A chunk as its scanner receives it (api.yaml ScannerChunk). */
export interface ScannerChunk {
  id: string;
  attempt: number;
  runId: string;
  seq: number;
  leaseMs: number;
  entries: string[];
  done: string[];
  target: Pick<TargetRecord, 'methods' | 'ports' | 'settings'>;
  credentials: ChunkCredentials[];
}

export interface ScannerReport {
  attempt: number;
  results: { address: string; result: AddressResult }[];
  remembered?: { address: string; method: string; credentialId: string }[];
  /** The chunk is through: it ends (DONE, or CANCELLED when its run stopped) with the credentials it offered. */
  end?: { credentialsTried: string[] };
}

export type ReportState = 'GO' | 'STOP' | 'LOST' | 'ENDED';

/** The key under which a remote scanner holds the leases of its chunks. */
export const scannerLeaseKey = (scannerId: string) => `${SCANNER_PREFIX}${scannerId}`;

/** A remote scanner as the chunks name it: `worker` holds them, `group` says which runs' it takes. */
export interface RemoteScanner extends ChunkHolder {
  group: string;
}

/** The addresses of a chunk as its entries give them (host names as named). */
function addressesOf(entries: string[]): string[] {
  return [...expandAddresses(entries.map((e) => parseAddress(e) as ParsedAddress))];
}

export class RemoteChunkService {
  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
    private readonly targets: TargetLookup,
    private readonly offers: CredentialOffer,
    private readonly hostState: HostStateStore,
    private readonly scheduler: Scheduler,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {}

  /** Takes the next chunk of the scanner's group, with what the scanner needs of it; undefined when none is queued. */
  async claim(scanner: RemoteScanner): Promise<ScannerChunk | undefined> {
    for (let chunk = await this.runs.claimChunk(scanner.group, scanner, this.leaseMs); chunk; chunk = await this.runs.claimChunk(scanner.group, scanner, this.leaseMs)) {
      const given = await this.chunkView(chunk, scanner);
      if (given) return given;
    }
    return undefined;
  }

  /** What the scanner needs of a chunk it has just taken; undefined (the chunk failed) when its target is gone. */
  private async chunkView(chunk: RunChunk, scanner: RemoteScanner): Promise<ScannerChunk | undefined> {
    const target = chunk.targetId ? await this.targets.find(chunk.targetId) : undefined;
    if (!target) {
      await this.runs.failChunk(chunk, scanner.worker, { address: null, method: 'RUN', stage: 'run', code: 'INTERNAL_ERROR', message: `The chunk ${chunk.first} to ${chunk.last} was not scanned: its target was deleted.` });
      await this.scheduler.enqueue(CHUNK_JOB, { runId: chunk.runId });
      return undefined;
    }
    const addresses = addressesOf(chunk.entries);
    const { credentials } = await this.offers.forTarget(target);
    const given: ChunkCredentials[] = [];
    for (const [method, offer] of credentials) given.push(await offer.forChunk(addresses, await this.hostState.rememberedCredentials(addresses, method)));
    await this.runs.recordGiven(chunk.id, chunk.attempts, Object.fromEntries(given.map((c) => [c.method, c.candidates.map((candidate) => candidate.id)])));
    this.logger.info('chunk given to a remote scanner', { scanner: scanner.name, runId: chunk.runId, chunk: chunk.seq, attempt: chunk.attempts, credentials: given.reduce((n, c) => n + c.revealed.length, 0) });
    return {
      id: chunk.id,
      attempt: chunk.attempts,
      runId: chunk.runId,
      seq: chunk.seq,
      leaseMs: this.leaseMs,
      entries: chunk.entries,
      done: await this.runs.doneAddresses(chunk.id),
      target: { methods: target.methods, ports: target.ports, settings: target.settings },
      credentials: given,
    };
  }

  /**
   * Keeps a report's results and renews the lease; ends the chunk when the report says so, and
   * `ended` records that in the same transaction. Answers whether to go on.
   */
  async report(scanner: RemoteScanner, chunkId: string, report: ScannerReport, ended: (trx: Knex.Transaction) => Promise<void>): Promise<ReportState> {
    const chunk = await this.runs.heldChunk(chunkId, scanner.worker, report.attempt);
    if (!chunk) {
      // An end retried after its answer was lost finds the chunk ended by this attempt.
      const endedAs = report.end ? await this.runs.endedAs(chunkId, scanner.worker, report.attempt) : undefined;
      return endedAs === 'DONE' || endedAs === 'CANCELLED' ? 'ENDED' : 'LOST';
    }
    this.check(chunk, report);
    const state = await this.runs.saveProgress(chunk, scanner.worker, report.results.map((r) => ({ address: r.address, result: checkedResult(r.result) })), this.leaseMs);
    if (state === 'LOST') return state;
    for (const r of report.remembered ?? []) await this.hostState.remember(r.address, r.method, r.credentialId);
    if (!report.end) return state;
    const done = await this.db.transaction(async (trx) => {
      if (!(await this.runs.endChunk(chunk, scanner.worker, state === 'GO' ? 'DONE' : 'CANCELLED', trx))) return false;
      await ended(trx);
      await this.runs.recordCredentialsTried(chunk.runId, report.end?.credentialsTried ?? [], trx);
      return true;
    });
    if (!done) return 'LOST';
    // A worker sees whether the run has a chunk left, and loads it when none is.
    await this.scheduler.enqueue(CHUNK_JOB, { runId: chunk.runId });
    return 'ENDED';
  }

  /**
   * A report names only addresses of its chunk, and only credentials its claim gave (those its
   * addresses could be offered then): nothing is written otherwise.
   */
  private check(chunk: RunChunk, report: ScannerReport): void {
    const addresses = new Set(addressesOf(chunk.entries));
    const resolved = new Set(report.results.map((r) => r.result.address));
    const remembered = report.remembered ?? [];
    const given = chunk.givenCredentials ?? {};
    const givenAny = new Set(Object.values(given).flat());
    const errors = [
      ...report.results.flatMap((r, i) => (addresses.has(r.address) ? [] : [{ path: `body.results.${i}.address`, message: `${r.address} is not an address of the chunk` }])),
      ...remembered.flatMap((r, i) => (addresses.has(r.address) || resolved.has(r.address) ? [] : [{ path: `body.remembered.${i}.address`, message: `${r.address} is not an address of the chunk or of this report` }])),
      ...remembered.flatMap((r, i) => ((INVENTORY_METHODS as string[]).includes(r.method) ? [] : [{ path: `body.remembered.${i}.method`, message: `${r.method} is no inventory method` }])),
      ...remembered.flatMap((r, i) => (given[r.method]?.includes(r.credentialId) ? [] : [{ path: `body.remembered.${i}.credentialId`, message: `${r.credentialId} is not a ${r.method} credential the chunk was given` }])),
      ...(report.end?.credentialsTried ?? []).flatMap((id, i) => (givenAny.has(id) ? [] : [{ path: `body.end.credentialsTried.${i}`, message: `${id} is not a credential the chunk was given` }])),
    ];
    if (errors.length) throw new BadRequestError('The report names what its chunk does not hold.', errors);
  }

  /** Pins the key or certificate a host of the chunk presented at first contact; answers the pinned one when it presented another. */
  async pin(scanner: RemoteScanner, chunkId: string, attempt: number, kind: PinKind, address: string, port: number, seen: Pin): Promise<Pin | undefined> {
    await this.held(scanner, chunkId, attempt);
    return this.hostState.pinOrCompare(kind, address, port, seen);
  }

  /** Counts one more host of the chunk's run for a method; answers how many were counted before it. */
  async countHost(scanner: RemoteScanner, chunkId: string, attempt: number, method: string): Promise<number> {
    const chunk = await this.held(scanner, chunkId, attempt);
    return this.runs.countHost(chunk.runId, method);
  }

  private async held(scanner: RemoteScanner, chunkId: string, attempt: number): Promise<RunChunk> {
    const chunk = await this.runs.heldChunk(chunkId, scanner.worker, attempt);
    if (!chunk) throw new ConflictError('The scanner no longer holds this chunk (its lease expired, or its run ended).');
    return chunk;
  }
}
