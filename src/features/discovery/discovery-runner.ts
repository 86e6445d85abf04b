// Runs one discovery run on a worker: claim it (with a lease that progress renews), then take each
// address through the pipeline: SWEEP (is it there, which ports answer), then the inventory
// methods of the connector registry in its order, a bounded number of hosts at a time and one
// connection per host at a time,
// each host within its own time-out; then load everything (observation-loader.ts). A cancel
// stops the run and loads nothing.
import { promises as dns } from 'node:dns';
import net from 'node:net';
import type { Logger } from '../../platform/logger.js';
import type { ConnectorEnvironment, InventoryConnector } from './connectors/connector.js';
import { INVENTORY_CONNECTORS, type InventoryMethod } from './connectors/registry.js';
import type { CredentialOffer, RunCredentials } from './credential-offer.js';
import type { HostStateStore } from './host-state-store.js';
import type { AddressResult } from './observation-bundle.js';
import type { ObservationLoader } from './observation-loader.js';
import type { RunListener } from './run-listener.js';
import type { RunStore } from './run-store.js';
import type { RunError, RunStatus, RunSummary } from './run-record.js';
import { sweep, type SweepOptions } from './connectors/sweep/sweep-connector.js';
import { expandAddresses, parseAddress, type ParsedAddress } from './target-addresses.js';
import type { TargetStore } from './target-store.js';
import { portOf, type TargetRecord } from './target-record.js';

export interface RunnerSettings {
  sweep: Omit<SweepOptions, 'excluded'>;
  /** Addresses probed at the same time. */
  concurrency: number;
  /** Hosts inventoried (SSH, SNMP, ...) at the same time. */
  hostConcurrency: number;
  hostTimeoutMs: number;
  leaseMs: number;
  /** host:port of the service's own stores, never probed. */
  excluded: Set<string>;
}

const PROGRESS_EVERY_MS = 1000;

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

/** The hosts each method with a per-run limit (maxHostsPerRun) was tried at in one run. */
class HostLimits {
  private readonly tried = new Map<string, number>();

  constructor(private readonly target: TargetRecord) {}

  /** Counts a host for the method; past its limit, the limit (and whether this is the first host left out). */
  take(connector: InventoryConnector): { max: number; first: boolean } | undefined {
    if (!connector.maxHostsPerRun) return undefined;
    const max = connector.maxHostsPerRun(this.target.settings[connector.method] ?? {});
    const count = this.tried.get(connector.method) ?? 0;
    this.tried.set(connector.method, count + 1);
    return count < max ? undefined : { max, first: count === max };
  }
}

export class DiscoveryRunner {
  constructor(
    private readonly runs: RunStore,
    private readonly targets: TargetStore,
    private readonly offers: CredentialOffer,
    private readonly hostState: HostStateStore,
    private readonly environment: ConnectorEnvironment,
    private readonly loader: ObservationLoader,
    private readonly settings: RunnerSettings,
    private readonly logger: Logger,
    private readonly followUp: RunListener,
  ) {}

  async run(runId: string, worker: string): Promise<void> {
    const run = await this.runs.claim(runId, worker, this.settings.leaseMs);
    if (!run) return;
    try {
      const target = run.targetId ? await this.targets.find(run.targetId) : undefined;
      if (!target) {
        await this.finish(runId, 'FAILED', undefined, 'The target was deleted before the run started.');
        return;
      }
      const scanned = await this.scanAll(runId, target);
      // A cancel asked for after the last progress report still stops the run, as long as it came before the load.
      if (scanned === 'CANCELLED' || !(await this.runs.beginLoad(runId))) {
        await this.finish(runId, 'CANCELLED', undefined);
        return;
      }
      const { results, runErrors, credentialsTried } = scanned;
      await this.runs.recordCredentialsTried(runId, credentialsTried);
      const errors = [...runErrors, ...results.flatMap((r) => r.errors)];
      const summary = await this.loader.load(runId, results, portOf(target, 'SSH'), new Date().toISOString());
      await this.runs.addErrors(runId, errors);
      await this.finish(runId, errors.length ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED', summary);
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

  /** Every address through the pipeline, a bounded number at a time; 'CANCELLED' when a cancel arrives. */
  private async scanAll(runId: string, target: TargetRecord): Promise<{ results: AddressResult[]; runErrors: RunError[]; credentialsTried: string[] } | 'CANCELLED'> {
    const entries = target.addresses.map((a) => parseAddress(a) as ParsedAddress);
    const tasks = (function* () {
      for (const entry of entries) for (const address of expandAddresses([entry])) yield { address, explicit: entry.kind === 'IP' || entry.kind === 'HOSTNAME' };
    })();
    const credentials = new Map<InventoryMethod, RunCredentials>();
    for (const { method } of INVENTORY_CONNECTORS) if (target.methods.includes(method)) credentials.set(method, await this.offers.forRun(method, target.credentialIds));
    // A method whose credentials are optional (DNS) is tried without one.
    const required = new Set<string>(INVENTORY_CONNECTORS.filter((c) => !c.credentialsOptional).map((c) => c.method));
    const runErrors = [...credentials].flatMap(([method, c]): RunError[] =>
      c.isEmpty() && required.has(method) ? [{ address: null, method, stage: 'authenticate', code: 'NO_CREDENTIALS', message: `No ${method} credential is listed on the target or has a match pattern; ${method} was not tried.` }] : [],
    );
    for (const method of credentials.keys()) if (credentials.get(method)?.isEmpty() && required.has(method)) credentials.delete(method);

    const results: AddressResult[] = [];
    const inventory = semaphore(this.settings.hostConcurrency);
    const sweepOptions = {
      ...this.settings.sweep,
      // The port of each method tried where its port answers is always probed, so that the sweep can tell whether it is worth trying.
      ports: [...new Set([...this.settings.sweep.ports, ...INVENTORY_CONNECTORS.filter((c) => c.triedWhere === 'port-answered' && credentials.has(c.method)).map((c) => portOf(target, c.method))])],
      excluded: this.settings.excluded,
    };
    let done = 0;
    let cancelled = false;
    let lastReport = 0;
    // A cancel also stops what the connectors run for the addresses in hand (nmap).
    const cancel = new AbortController();
    // A report that fails (the store slow or away for a moment) costs nothing but itself: the next one
    // renews the lease, and the load that follows sees a cancel in any case (beginLoad).
    const report = async (force: boolean) => {
      if (!force && Date.now() - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = Date.now();
      try {
        cancelled = (await this.runs.progress(runId, done, target.addressCount, this.settings.leaseMs)) || cancelled;
      } catch (error) {
        this.logger.warn('discovery progress not recorded', { runId, error });
      }
      if (cancelled) cancel.abort();
    };
    const hosts = new HostLimits(target);
    const worker = async () => {
      for (let next = tasks.next(); !next.done && !cancelled; next = tasks.next()) {
        results.push(await this.scanAddress(next.value, target, sweepOptions, credentials, inventory, hosts, cancel.signal));
        done++;
        await report(false);
      }
    };
    await report(true);
    // Progress is reported while every worker waits on a slow host too: the lease is renewed, and a cancel is seen.
    const heartbeat = setInterval(() => void report(false), PROGRESS_EVERY_MS);
    try {
      await Promise.all(Array.from({ length: this.settings.concurrency }, worker));
    } finally {
      clearInterval(heartbeat);
    }
    await report(true);
    return cancelled ? 'CANCELLED' : { results, runErrors, credentialsTried: [...credentials.values()].flatMap((c) => [...c.offered]) };
  }

  private async scanAddress(
    task: AddressTask,
    target: TargetRecord,
    sweepOptions: SweepOptions,
    credentials: Map<InventoryMethod, RunCredentials>,
    inventory: ReturnType<typeof semaphore>,
    hosts: HostLimits,
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
    return inventory(async () => {
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
        const limit = hosts.take(connector);
        if (limit !== undefined) {
          if (limit.first) result.errors.push({ address: result.address, method, stage: 'connect', code: 'HOST_LIMIT_REACHED', message: `${method} was tried at the ${limit.max} hosts the target's settings.${method}.maxHosts allow; this address and the later ones were left out of it.` });
          continue;
        }
        const probe = async (address: string) => (await sweep(address, sweepOptions)).responding;
        const request = { address: result.address, ...(hostname ? { hostname } : {}), credentials: offered, port, settings: target.settings[method] ?? {}, deadline, probe, signal };
        const tried = offered.length > 0 || connector.credentialsOptional === true;
        // Without a credential, an optional one's offer says only what went wrong with those there were.
        const offerErrors = offered.length ? errors : errors.filter((e) => e.code !== 'NO_CREDENTIALS');
        const outcome = tried ? await connector.collect(request, this.environment) : { errors };
        const gotIn = outcome.observation ?? outcome.estate ?? outcome.addressFacts;
        if (outcome.observation) result.observations.push(outcome.observation);
        if (outcome.estate) (result.estates ??= []).push(outcome.estate);
        if (outcome.addressFacts) (result.addressFacts ??= []).push(outcome.addressFacts);
        if (gotIn) {
          result.responding = true;
          if (outcome.credentialId) await this.hostState.remember(result.address, method, outcome.credentialId);
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
