// Runs one discovery run on a worker: claim it (with a lease that progress renews), sweep the
// target's addresses with bounded concurrency, then load: unknown hosts through the import path
// as UNKNOWN_ENDPOINT, known ones touched (nothing another connector knows is overwritten), and
// the scan outcome of every asset the run targeted. A cancel stops the sweep and loads nothing.
import type { Logger } from '../../platform/logger.js';
import type { RunFollowUp } from '../alerts/run-follow-up.js';
import type { IdentityStore } from '../import/identity-store.js';
import type { ImportService } from '../import/import-service.js';
import type { ScanGraphRepository } from './scan-graph-repository.js';
import { sweep, type SweepOptions, type SweepResult } from './sweep-connector.js';
import { expandAddresses, parseAddress, type ParsedAddress } from './target-addresses.js';
import type { RunError, RunStatus, RunStore, RunSummary } from './run-store.js';
import type { TargetStore } from './target-store.js';

export interface RunnerSettings {
  sweep: Omit<SweepOptions, 'excluded'>;
  concurrency: number;
  leaseMs: number;
  /** host:port of the service's own stores, never probed. */
  excluded: Set<string>;
}

const DISCOVERY_ACTOR = { kind: 'SYSTEM' as const, name: 'discovery' };
const SOURCE = 'discovery:SWEEP';
const PROGRESS_EVERY_MS = 1000;
// Connectors of the issue still to come: a target that asks for them gets an error record saying so.
const UNAVAILABLE_METHODS = ['SSH', 'SNMP'];

export class DiscoveryRunner {
  constructor(
    private readonly runs: RunStore,
    private readonly targets: TargetStore,
    private readonly identities: IdentityStore,
    private readonly importer: ImportService,
    private readonly scans: ScanGraphRepository,
    private readonly settings: RunnerSettings,
    private readonly logger: Logger,
    private readonly followUp: RunFollowUp,
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
      const errors: RunError[] = target.methods
        .filter((m) => UNAVAILABLE_METHODS.includes(m))
        .map((method) => ({ address: null, method, stage: 'connector', code: 'CONNECTOR_UNAVAILABLE', message: `The ${method} connector is not available in this version; only SWEEP ran.` }));
      const entries = target.addresses.map((a) => parseAddress(a) as ParsedAddress);
      const results = target.methods.includes('SWEEP') ? await this.sweepAll(runId, entries, target.addressCount) : [];
      if (results === 'CANCELLED') {
        await this.finish(runId, 'CANCELLED', undefined);
        return;
      }
      errors.push(...results.flatMap((r) => (r.error ? [r.error] : [])));
      const summary = await this.load(results, new Date().toISOString());
      await this.runs.addErrors(runId, errors);
      await this.finish(runId, errors.length ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED', summary);
    } catch (error) {
      this.logger.warn('discovery run failed', { runId, error });
      await this.finish(runId, 'FAILED', undefined, `The run stopped: ${error instanceof Error ? error.message.split('\n')[0] : 'unknown error'}`);
    }
  }

  /** Ends the run; the one call that ends it also queues its follow-up (diagnosis, alert). */
  private async finish(runId: string, status: RunStatus, summary: RunSummary | undefined, failureReason?: string): Promise<void> {
    if (await this.runs.finish(runId, status, summary, failureReason)) await this.followUp.runFinished(runId, status);
  }

  /** Sweeps every address, a bounded number at a time; 'CANCELLED' when a cancel arrives. */
  private async sweepAll(runId: string, entries: ParsedAddress[], total: number): Promise<SweepResult[] | 'CANCELLED'> {
    const addresses = expandAddresses(entries);
    const results: SweepResult[] = [];
    let done = 0;
    let cancelled = false;
    let lastReport = 0;
    const options = { ...this.settings.sweep, excluded: this.settings.excluded };
    const report = async (force: boolean) => {
      if (!force && Date.now() - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = Date.now();
      cancelled = (await this.runs.progress(runId, done, total, this.settings.leaseMs)) || cancelled;
    };
    const worker = async () => {
      for (let next = addresses.next(); !next.done && !cancelled; next = addresses.next()) {
        const result = await sweep(next.value, options);
        results.push(result);
        done++;
        await report(false);
      }
    };
    await report(true);
    await Promise.all(Array.from({ length: this.settings.concurrency }, worker));
    await report(true);
    return cancelled ? 'CANCELLED' : results;
  }

  private async load(results: SweepResult[], observedAt: string) {
    const responding = results.filter((r) => r.responding && r.ip);
    const silent = results.filter((r) => !r.responding && r.ip);
    const known = await this.identities.lookup([...responding, ...silent].map((r) => ({ rule: 'IP_ADDRESS' as const, value: r.ip as string })));
    const knownIds = new Map<string, string>();
    const unknown: SweepResult[] = [];
    for (const r of responding) {
      const hit = known.get(`IP_ADDRESS:${r.ip}`);
      if (hit) knownIds.set(r.ip as string, hit.assetId);
      else unknown.push(r);
    }
    let created = 0;
    const outcomes: { id: string; outcome: 'SUCCESS' | 'FAILED' }[] = [];
    if (unknown.length) {
      const imported = await this.importer.import(DISCOVERY_ACTOR, {
        source: SOURCE,
        observedAt,
        assets: unknown.map((r) => ({
          key: r.ip as string,
          assetType: 'UNKNOWN_ENDPOINT',
          displayName: r.hostname ?? (r.ip as string),
          ...(r.hostname ? { hostname: r.hostname } : {}),
          ipAddresses: [r.ip as string],
          customAttributes: { openPorts: r.openPorts.join(',') },
        })),
      });
      created = imported.created;
      for (const a of imported.assets) outcomes.push({ id: a.id, outcome: 'SUCCESS' });
    }
    await this.scans.touch([...knownIds.values()], SOURCE, observedAt);
    for (const id of knownIds.values()) outcomes.push({ id, outcome: 'SUCCESS' });
    // A known asset at an address that did not answer: the run targeted it and failed to reach it.
    for (const r of silent) {
      const hit = known.get(`IP_ADDRESS:${r.ip}`);
      if (hit) outcomes.push({ id: hit.assetId, outcome: 'FAILED' });
    }
    await this.scans.setOutcomes(outcomes, observedAt);
    return { hostsResponding: responding.length, assetsCreated: created, assetsUpdated: knownIds.size + (unknown.length - created) };
  }
}
