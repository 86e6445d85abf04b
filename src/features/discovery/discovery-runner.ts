// Runs discovery on the workers, a chunk of addresses at a time. A run is planned first: its
// target's addresses cut into chunks (target-addresses.ts), each queued as a job that any worker
// may take. A chunk's worker takes each address through the pipeline: SWEEP (is it there, which
// ports answer), then the inventory methods of the connector registry in its order, a bounded
// number of addresses and hosts at a time (over all the chunks the worker runs), one connection
// per host at a time, each host within its own time-out; what each address gave is kept in the
// store as it comes, with the chunk's lease renewed, so that a chunk taken over after its worker
// was lost scans only what is left. The worker that ends the last chunk loads everything
// (observation-loader.ts), retirement included, so that a run that did not read all its chunks
// retires nothing. A cancel stops the run and loads nothing. The scan of a chunk (ChunkScanner)
// knows its chunk only through a ChunkLink: the store here, the service's API in a remote scanner
// (src/features/scanners/), which takes the chunks of the runs of its group.
import { promises as dns } from 'node:dns';
import net from 'node:net';
import type { Logger } from '../../platform/logger.js';
import type { Scheduler } from '../../platform/scheduler/scheduler.js';
import type { ConnectorEnvironment, InventoryConnector } from './connectors/connector.js';
import { INVENTORY_CONNECTORS, type InventoryMethod } from './connectors/registry.js';
import type { CredentialOffer, RunCredentials } from './credential-offer.js';
import { CHUNK_JOB } from './discovery-service.js';
import type { HostStateStore } from './host-state-store.js';
import type { AddressResult } from './observation-bundle.js';
import type { ObservationLoader } from './observation-loader.js';
import type { RunListener } from './run-listener.js';
import type { ChunkState, RunChunk, RunStore } from './run-store.js';
import type { RunError, RunStatus, RunSummary } from './run-record.js';
import { sweep, type SweepOptions } from './connectors/sweep/sweep-connector.js';
import { chunkAddresses, expandAddresses, parseAddress, type ParsedAddress } from './target-addresses.js';
import type { TargetStore } from './target-store.js';
import { portOf, type TargetRecord } from './target-record.js';

export interface RunnerSettings {
  sweep: Omit<SweepOptions, 'excluded'>;
  /** Addresses probed at the same time by this worker. */
  concurrency: number;
  /** Hosts inventoried (SSH, SNMP, ...) at the same time by this worker. */
  hostConcurrency: number;
  hostTimeoutMs: number;
  leaseMs: number;
  /** The most addresses in a chunk. */
  chunkSize: number;
  /** host:port of the service's own stores, never probed. */
  excluded: Set<string>;
}

const PROGRESS_EVERY_MS = 1000;
/** How many times a chunk's last report is tried (a second apart) before the chunk is left to its lease. */
const FINAL_REPORT_TRIES = 60;
// The chunk jobs queued for a run: each takes chunks until none is left, so that a run of many
// small chunks does not flood the queue; 256 covers a /16 at the default chunk size, one job each.
const CHUNK_JOBS_PER_RUN = 256;

/** Whether a method's failure at this address is news: it was named on its own, or the method worked there before. */
interface AddressTask {
  address: string;
  explicit: boolean;
}

function semaphore(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/** What the scan of a chunk tells where its results go (the store, or the service's API), and asks of it. */
export interface ChunkLink {
  /** Keeps what was scanned since the last report and renews the chunk's lease; answers whether to go on. */
  save(results: { address: string; result: AddressResult }[]): Promise<ChunkState>;
  /** Counts one more host of the run for a method with a per-run limit; answers how many were counted before it. */
  countHost(method: string): Promise<number>;
  /** The credential of a method that worked at an address (offered first next time). */
  remember(address: string, method: string, credentialId: string): Promise<void>;
  /** Ends the chunk (DONE, or CANCELLED when its run stopped) with the credentials it offered; nothing when it was lost. */
  end(status: 'DONE' | 'CANCELLED', credentialsTried: string[]): Promise<void>;
}

/** The part of a target that the scan of its chunks reads. */
export type ChunkTarget = Pick<TargetRecord, 'methods' | 'ports' | 'settings'>;

/** A chunk to scan: its entries, the addresses an earlier attempt did, its target, and the credentials of each method it tries. */
export interface ChunkWork {
  entries: string[];
  done: Set<string>;
  target: ChunkTarget;
  credentials: Map<InventoryMethod, RunCredentials>;
}

/** The hosts each method with a per-run limit (maxHostsPerRun) was tried at in one run: counted where the run is kept, as a run's chunks run anywhere. */
class HostLimits {
  constructor(private readonly link: ChunkLink, private readonly target: ChunkTarget) {}

  /** Counts a host for the method; past its limit, the limit (and whether this is the first host left out). */
  async take(connector: InventoryConnector): Promise<{ max: number; first: boolean } | undefined> {
    if (!connector.maxHostsPerRun) return undefined;
    const max = connector.maxHostsPerRun(this.target.settings[connector.method] ?? {});
    const count = await this.link.countHost(connector.method);
    return count < max ? undefined : { max, first: count === max };
  }
}

/** The chunk of a run kept in the store, as the worker that took it sees it. */
class StoreChunkLink implements ChunkLink {
  constructor(private readonly runs: RunStore, private readonly hostState: HostStateStore, private readonly chunk: RunChunk, private readonly worker: string, private readonly leaseMs: number) {}

  save(results: { address: string; result: AddressResult }[]): Promise<ChunkState> {
    return this.runs.saveProgress(this.chunk, this.worker, results, this.leaseMs);
  }

  countHost(method: string): Promise<number> {
    return this.runs.countHost(this.chunk.runId, method);
  }

  remember(address: string, method: string, credentialId: string): Promise<void> {
    return this.hostState.remember(address, method, credentialId);
  }

  async end(status: 'DONE' | 'CANCELLED', credentialsTried: string[]): Promise<void> {
    if (await this.runs.endChunk(this.chunk, this.worker, status)) await this.runs.recordCredentialsTried(this.chunk.runId, credentialsTried);
  }
}

/** A scanner's bounds and settings. */
export type ChunkScanSettings = Pick<RunnerSettings, 'sweep' | 'concurrency' | 'hostConcurrency' | 'hostTimeoutMs' | 'excluded'>;

export class DiscoveryRunner {
  private readonly scanner: ChunkScanner;

  constructor(
    private readonly runs: RunStore,
    private readonly targets: TargetStore,
    private readonly offers: CredentialOffer,
    private readonly hostState: HostStateStore,
    private readonly environment: ConnectorEnvironment,
    private readonly loader: ObservationLoader,
    private readonly scheduler: Scheduler,
    private readonly settings: RunnerSettings,
    private readonly logger: Logger,
    private readonly followUp: RunListener,
  ) {
    this.scanner = new ChunkScanner(settings, logger);
  }

  /** Plans a QUEUED run: its chunks written and jobs queued for them, under the run's lease until the first is queued. */
  async run(runId: string, worker: string): Promise<void> {
    const run = await this.runs.claim(runId, worker, this.settings.leaseMs);
    if (!run) return;
    await this.guarded(runId, async () => {
      const target = run.targetId ? await this.targets.find(run.targetId) : undefined;
      if (!target) {
        await this.finish(runId, 'FAILED', undefined, 'The target was deleted before the run started.');
        return;
      }
      const planned = await this.runs.plan(runId, [...chunkAddresses(this.entriesOf(target.addresses), this.settings.chunkSize)]);
      // The scanners of its group take the chunks of a run that has one (and ask for them).
      if (run.scannerGroup !== null) {
        await this.runs.release(runId, worker);
        return;
      }
      // Once one job is queued the run needs its planner no more (a job takes chunks until none is
      // left, and a lost one's chunks are queued again with a job each): the lease ends there.
      for (let i = 0; i < Math.min(planned, CHUNK_JOBS_PER_RUN); i++) {
        await this.scheduler.enqueue(CHUNK_JOB, { runId });
        if (i === 0) await this.runs.release(runId, worker);
      }
    });
  }

  /** Takes the queued chunks of the run one after another and scans each; then, when no chunk is left, ends the run (the load). */
  async runChunk(runId: string, worker: string): Promise<void> {
    for (let chunk = await this.runs.takeChunk(runId, worker, this.settings.leaseMs); chunk; chunk = await this.runs.takeChunk(runId, worker, this.settings.leaseMs)) {
      try {
        await this.scanChunk(chunk, worker);
      } catch (error) {
        this.logger.warn('discovery chunk failed', { runId, chunk: chunk.seq, error });
        await this.runs.failChunk(chunk, worker, { address: null, method: 'RUN', stage: 'run', code: 'INTERNAL_ERROR', message: `The chunk ${chunk.first} to ${chunk.last} stopped on an unexpected error; the service log has the details.` });
      }
    }
    await this.conclude(runId, worker);
  }

  /** Runs a step of a run; an unexpected error fails the run, with the reason. */
  private async guarded(runId: string, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.logger.warn('discovery run failed', { runId, error });
      await this.runs.addErrors(runId, [{ address: null, method: 'RUN', stage: 'run', code: 'INTERNAL_ERROR', message: 'The run stopped on an unexpected error; the service log has the details.' }]);
      await this.finish(runId, 'FAILED', undefined, `The run stopped: ${error instanceof Error ? error.message.split('\n')[0]?.slice(0, 300) : 'unknown error'}`);
    }
  }

  /** Ends the run; the one call that ends it also announces it (its listener queues the diagnosis and alert). */
  private async finish(runId: string, status: RunStatus, summary: RunSummary | undefined, failureReason?: string): Promise<void> {
    if (await this.runs.finish(runId, status, summary, failureReason)) await this.followUp.runFinished(runId, status);
  }

  private entriesOf(addresses: string[]): ParsedAddress[] {
    return addresses.map((a) => parseAddress(a) as ParsedAddress);
  }

  /** The chunk's addresses not done by an earlier attempt, through the pipeline, its results kept in the store. */
  private async scanChunk(chunk: RunChunk, worker: string): Promise<void> {
    const target = chunk.targetId ? await this.targets.find(chunk.targetId) : undefined;
    if (!target) {
      await this.finish(chunk.runId, 'FAILED', undefined, 'The target was deleted before the run ended.');
      return;
    }
    const { credentials } = await this.offers.forTarget(target);
    const done = new Set(await this.runs.doneAddresses(chunk.id));
    await this.scanner.scan({ entries: chunk.entries, done, target, credentials }, new StoreChunkLink(this.runs, this.hostState, chunk, worker, this.settings.leaseMs), this.environment);
  }

  /** When the run has no chunk left: a cancelled one ends, another loads what its chunks kept and ends. */
  private async conclude(runId: string, worker: string): Promise<void> {
    const next = await this.runs.conclude(runId, worker, this.settings.leaseMs);
    if (next === 'CANCELLED') await this.followUp.runFinished(runId, 'CANCELLED');
    if (next !== 'LOAD') return;
    const renew = setInterval(() => void this.runs.renewLease(runId, this.settings.leaseMs).catch(() => undefined), Math.floor(this.settings.leaseMs / 3));
    try {
      await this.guarded(runId, async () => {
        const run = await this.runs.find(runId);
        const target = run?.targetId ? await this.targets.find(run.targetId) : undefined;
        if (!target) {
          await this.finish(runId, 'FAILED', undefined, 'The target was deleted before the run ended.');
          return;
        }
        const results = await this.runs.results(runId);
        const { runErrors } = await this.offers.forTarget(target);
        const errors = [...runErrors, ...results.flatMap((r) => r.errors)];
        const summary = await this.loader.load(runId, results, portOf(target, 'SSH'), new Date().toISOString());
        await this.runs.addErrors(runId, errors);
        // Chunks that failed (WORKER_LOST, INTERNAL_ERROR) have their records already.
        const recorded = (await this.runs.find(runId))?.errorCount ?? errors.length;
        await this.finish(runId, recorded > 0 ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED', summary);
      });
    } finally {
      clearInterval(renew);
    }
  }
}

/**
 * Scans chunks, wherever they are kept: every address not done by an earlier attempt through the
 * pipeline, a bounded number of addresses and hosts at a time over all the chunks it scans at
 * once; what they gave is reported every second, which renews the chunk's lease and says whether
 * to go on.
 */
export class ChunkScanner {
  // One process's bounds, over all the chunks it runs at once.
  private readonly probes: ReturnType<typeof semaphore>;
  private readonly inventory: ReturnType<typeof semaphore>;

  constructor(private readonly settings: ChunkScanSettings, private readonly logger: Logger) {
    this.probes = semaphore(settings.concurrency);
    this.inventory = semaphore(settings.hostConcurrency);
  }

  async scan({ entries, done, target, credentials }: ChunkWork, link: ChunkLink, environment: ConnectorEnvironment): Promise<void> {
    const tasks = (function* (parsed: ParsedAddress[]) {
      for (const entry of parsed) {
        for (const address of expandAddresses([entry])) if (!done.has(address)) yield { address, explicit: entry.kind === 'IP' || entry.kind === 'HOSTNAME' };
      }
    })(entries.map((a) => parseAddress(a) as ParsedAddress));
    const sweepOptions = {
      ...this.settings.sweep,
      // The port of each method tried where its port answers is always probed, so that the sweep can tell whether it is worth trying.
      ports: [...new Set([...this.settings.sweep.ports, ...INVENTORY_CONNECTORS.filter((c) => c.triedWhere === 'port-answered' && credentials.has(c.method)).map((c) => portOf(target, c.method))])],
      excluded: this.settings.excluded,
    };

    const scanned: { address: string; result: AddressResult }[] = [];
    let state = 'GO' as ChunkState;
    let saving = Promise.resolve();
    // A cancel (or the chunk taken over) also stops what the connectors run for the addresses in hand (nmap).
    const stop = new AbortController();
    // One save at a time. A save that fails (the store or the service slow or away for a moment)
    // costs nothing but itself: its results wait for the next one, which renews the lease; a chunk
    // whose lease ran out meanwhile was handed over, and the next save says so (LOST).
    const save = () => (saving = saving.then(async () => {
      if (state !== 'GO') return;
      const batch = scanned.splice(0);
      try {
        state = await link.save(batch);
      } catch (error) {
        scanned.unshift(...batch);
        this.logger.warn('discovery chunk progress not recorded; the next report tries again', { error });
      }
      if (state !== 'GO') stop.abort();
    }));
    const hosts = new HostLimits(link, target);
    const ticker = setInterval(save, PROGRESS_EVERY_MS);
    const scanner = async () => {
      for (let next = tasks.next(); !next.done && state === 'GO'; next = tasks.next()) {
        const task = next.value;
        scanned.push({ address: task.address, result: await this.probes(() => this.scanAddress(task, target, sweepOptions, credentials, hosts, link, environment, stop.signal)) });
      }
    };
    try {
      await Promise.all(Array.from({ length: this.settings.concurrency }, scanner));
    } finally {
      clearInterval(ticker);
    }
    // The chunk ends only once everything it scanned is kept: a last report that got no answer is
    // tried again, a second apart; failing that, the chunk is left to its lease, and its next
    // attempt scans what was not kept.
    for (let tries = 1; ; tries++) {
      await save();
      await saving;
      if (state !== 'GO' || scanned.length === 0) break;
      if (tries >= FINAL_REPORT_TRIES) {
        this.logger.warn('discovery chunk left to its lease: its last results could not be recorded', { addresses: scanned.length });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, PROGRESS_EVERY_MS));
    }
    if (state === 'LOST') return;
    await link.end(state === 'GO' ? 'DONE' : 'CANCELLED', [...credentials.values()].flatMap((c) => [...c.offered]));
  }

  private async scanAddress(
    task: AddressTask,
    target: ChunkTarget,
    sweepOptions: SweepOptions,
    credentials: Map<InventoryMethod, RunCredentials>,
    hosts: HostLimits,
    link: ChunkLink,
    environment: ConnectorEnvironment,
    signal: AbortSignal,
  ): Promise<AddressResult> {
    const result: AddressResult = { address: task.address, responding: false, openPorts: [], attempted: [], observations: [], errors: [] };
    let swept: Awaited<ReturnType<typeof sweep>> | undefined;
    if (target.methods.includes('SWEEP')) {
      swept = await sweep(task.address, sweepOptions);
      if (swept.error) return { ...result, errors: [swept.error] };
      Object.assign(result, { address: swept.ip, responding: swept.responding, openPorts: swept.openPorts, ...(swept.hostname ? { hostname: swept.hostname } : {}) });
      if (!swept.responding) {
        if (task.explicit) result.errors.push({ address: result.address, method: 'SWEEP', stage: 'connect', code: 'HOST_UNREACHABLE', message: `${task.address} answered on none of the ports probed (${sweepOptions.ports.join(', ')}).` });
        return result;
      }
    } else if (!net.isIP(task.address)) {
      const found = await dns.lookup(task.address).catch(() => undefined);
      if (!found) return { ...result, errors: [{ address: task.address, method: 'RUN', stage: 'resolve', code: 'DNS_FAILURE', message: `${task.address} does not resolve to an address.` }] };
      result.address = found.address;
    }
    if (credentials.size === 0) return result;
    const hostname = net.isIP(task.address) ? result.hostname : task.address;
    return this.inventory(async () => {
      const deadline = Date.now() + this.settings.hostTimeoutMs;
      for (const connector of INVENTORY_CONNECTORS) {
        const { method } = connector;
        const runCredentials = credentials.get(method);
        if (!runCredentials) continue;
        const port = portOf(target, method);
        const { credentials: offered, errors, remembered } = await runCredentials.offer(result.address, hostname);
        const expected = task.explicit || remembered;
        if (connector.triedWhere === 'port-answered' && swept && !swept.openPorts.includes(port) && !expected) continue;
        if (Date.now() >= deadline) {
          result.errors.push({ address: result.address, method, stage: 'connect', code: 'HOST_TIMEOUT', message: `The per-host time-out (${this.settings.hostTimeoutMs} ms) ended before ${method} could run.` });
          result.attempted.push(method);
          continue;
        }
        const limit = await hosts.take(connector);
        if (limit !== undefined) {
          if (limit.first) result.errors.push({ address: result.address, method, stage: 'connect', code: 'HOST_LIMIT_REACHED', message: `${method} was tried at the ${limit.max} hosts the target's settings.${method}.maxHosts allow; this address and the later ones were left out of it.` });
          continue;
        }
        const probe = async (address: string) => (await sweep(address, sweepOptions)).responding;
        const request = { address: result.address, ...(hostname ? { hostname } : {}), credentials: offered, port, settings: target.settings[method] ?? {}, deadline, probe, signal };
        const tried = offered.length > 0 || connector.credentialsOptional === true;
        // Without a credential, an optional one's offer says only what went wrong with those there were.
        const offerErrors = offered.length ? errors : errors.filter((e) => e.code !== 'NO_CREDENTIALS');
        const outcome = tried ? await connector.collect(request, environment) : { errors };
        const gotIn = outcome.observation ?? outcome.estate ?? outcome.addressFacts;
        if (outcome.observation) result.observations.push(outcome.observation);
        if (outcome.estate) (result.estates ??= []).push(outcome.estate);
        if (outcome.addressFacts) (result.addressFacts ??= []).push(outcome.addressFacts);
        if (gotIn) {
          result.responding = true;
          if (outcome.credentialId) await link.remember(result.address, method, outcome.credentialId);
        }
        // A host that simply does not speak a method it was never known to speak is no error.
        const silent = !gotIn && outcome.errors.every((e) => (connector.silentCodes as readonly string[]).includes(e.code));
        if (silent && !expected) continue;
        result.attempted.push(method);
        result.errors.push(...(tried ? offerErrors : []), ...outcome.errors);
      }
      return result;
    });
  }
}
