// The worker-loss section: how long the chunks of a discovery worker killed mid-run (SIGKILL) take
// to be running again on another worker, with the default lease and with a short one. Two worker
// processes (dist/main.js) share a SWEEP run of a loopback /16 (no lab needed) with the benchmark's
// own process (api, scheduler); one is killed once both hold chunks. Each figure is split into its
// parts (the lease left at the kill, the wait for a lease sweep, the take) and set beside the two
// statements the hand-over needs (the sweep's UPDATE and a take), timed bare in the same run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningService } from '../../start-service.js';
import { fromProjectRoot } from '../../platform/project-root.js';
import { elapsedMs, loadAverage, machine, median, withDataDir, withService, writeSection, type ApiClient } from './support.js';

const TARGET = '127.3.0.0/16';
const CONCURRENCY = 64;
const SHORT_LEASE_MS = 10_000;
const DEFAULT_LEASE_MS = 60_000;
const BARE_REPEATS = 20;
// Its local stores on ports of their own: the section runs for minutes, beside others' benchmarks.
const OWN_PORTS = { localPostgresPort: 55620, localNeo4jBoltPort: 57620 };

interface ChunkRow {
  id: string;
  status: string;
  worker: string | null;
  lease_expires_at: Date | null;
}

interface Absorption {
  leaseMs: number;
  lost: number;
  /** Seconds from the kill: the last lost chunk's lease expiry, its return to the queue, its take by the other worker. */
  leaseLeft: number;
  requeued: number;
  taken: number;
}

function startWorker(service: RunningService, leaseMs: number): ChildProcess {
  const { databaseUrl, neo4jUri, neo4jPassword } = service.container.addresses;
  return spawn(process.execPath, [fromProjectRoot('dist', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NEO4J_URI: neo4jUri,
      NEO4J_PASSWORD: neo4jPassword,
      SERVICE_ROLES: 'worker',
      PORT: '0',
      SERVICE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'inventory-bench-worker-')),
      SERVICE_DISCOVERY_LEASE_MS: String(leaseMs),
      SERVICE_DISCOVERY_CONCURRENCY: String(CONCURRENCY),
      SERVICE_DISCOVERY_SWEEP_PORTS: '9',
      SERVICE_JOBS_LOCK_LIFETIME_MS: '10000',
      SERVICE_LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const killed = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve();
  else {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  }
});

/** One run shared by two workers, one of them killed: when its chunks came back and were taken again. */
async function absorb(service: RunningService, api: ApiClient, targetId: string, leaseMs: number): Promise<Absorption> {
  const { db } = service.container;
  const workers = [startWorker(service, leaseMs), startWorker(service, leaseMs)];
  try {
    const run = (await api.post<{ data: { id: string } }>(`/api/v1/discovery/targets/${targetId}/scan`, undefined, 202)).data;
    const chunks = (): Promise<ChunkRow[]> => db('discovery_run_chunks').where({ run_id: run.id }).select('id', 'status', 'worker', 'lease_expires_at');
    // Both workers hold chunks: the one with the lowest process id is killed.
    let held: ChunkRow[] = [];
    for (const end = Date.now() + 5 * 60_000; new Set(held.map((c) => c.worker)).size < 2; await sleep(100)) {
      if (Date.now() > end) throw new Error('the two workers did not both take chunks within 5 minutes');
      held = (await chunks()).filter((c) => c.status === 'RUNNING');
    }
    const doomed = workers[0] as ChildProcess;
    await killed(doomed);
    const killedAt = Date.now();
    const lost = (await chunks()).filter((c) => c.status === 'RUNNING' && c.worker?.endsWith(`:${doomed.pid}`));
    const lastLease = Math.max(...lost.map((c) => (c.lease_expires_at as Date).getTime()));
    const requeuedAt = new Map<string, number>();
    const takenAt = new Map<string, number>();
    for (const end = Date.now() + leaseMs + 5 * 60_000; takenAt.size < lost.length; await sleep(100)) {
      if (Date.now() > end) throw new Error('the lost chunks were not taken again within the lease and 5 minutes');
      const now = await chunks();
      for (const c of lost) {
        const row = now.find((r) => r.id === c.id) as ChunkRow;
        if (!requeuedAt.has(c.id) && (row.status !== 'RUNNING' || row.worker !== c.worker)) requeuedAt.set(c.id, Date.now());
        if (!takenAt.has(c.id) && row.worker !== c.worker) takenAt.set(c.id, Date.now());
      }
    }
    await api.post(`/api/v1/discovery/runs/${run.id}/cancel`, undefined, 200);
    for (let status = ''; status !== 'CANCELLED'; await sleep(200)) status = (await api.get<{ data: { status: string } }>(`/api/v1/discovery/runs/${run.id}`)).data.status;
    const seconds = (t: number) => (t - killedAt) / 1000;
    return { leaseMs, lost: lost.length, leaseLeft: seconds(lastLease), requeued: seconds(Math.max(...requeuedAt.values())), taken: seconds(Math.max(...takenAt.values())) };
  } finally {
    await Promise.all(workers.map(killed));
  }
}

/** The two statements of a hand-over, bare: the lease sweep (nothing expired) and a take (nothing queued), median ms. */
async function bareStatements(service: RunningService): Promise<{ sweep: number; take: number }> {
  const { runs } = service.container;
  const sweep: number[] = [];
  const take: number[] = [];
  for (let i = 0; i < BARE_REPEATS; i++) {
    let start = process.hrtime.bigint();
    await runs.expireChunks(3);
    sweep.push(elapsedMs(start));
    start = process.hrtime.bigint();
    await runs.takeChunk('00000000-0000-4000-8000-000000000000', 'bench', 1000);
    take.push(elapsedMs(start));
  }
  return { sweep: median(sweep), take: median(take) };
}

export async function workerLossBench(): Promise<void> {
  await withDataDir((dataDir) => withService(dataDir, { roles: 'api,scheduler', ...OWN_PORTS }, async (service, api) => {
    const loadBefore = loadAverage();
    const target = (await api.post<{ data: { id: string } }>('/api/v1/discovery/targets', { name: 'loopback /16', addresses: [TARGET], methods: ['SWEEP'] })).data.id;
    const results: Absorption[] = [];
    for (const leaseMs of [DEFAULT_LEASE_MS, SHORT_LEASE_MS]) {
      results.push(await absorb(service, api, target, leaseMs));
      console.log(`lease ${leaseMs} ms: taken again ${results.at(-1)?.taken.toFixed(1)} s after the kill`);
    }
    const bare = await bareStatements(service);
    const row = (a: Absorption) => `| ${a.leaseMs / 1000} s${a.leaseMs === DEFAULT_LEASE_MS ? ' (default)' : ''} | ${a.lost} | ${a.leaseLeft.toFixed(1)} | ${a.requeued.toFixed(1)} | **${a.taken.toFixed(1)}** |`;
    writeSection('worker-loss', `
## A discovery worker lost mid-run

${machine()} · 1-minute load average ${loadBefore} at the start, ${loadAverage()} at the end

Two worker processes (\`SERVICE_ROLES=worker\`, \`dist/main.js\`, ${CONCURRENCY} addresses at a time each) and the benchmark's process (api, scheduler) on one set of local stores share a SWEEP run of ${TARGET} (loopback: 65,534 addresses, 256 chunks of 256, \`service.discovery.chunk-size\`'s default). Once both hold chunks, one is killed with SIGKILL; the table gives, in seconds after the kill, when the last of its chunks had its lease expire, went back to the queue (the other worker's lease sweeper, every 15 s) and was taken by the other worker (what it had kept is not scanned again). Then the run is cancelled. One run per lease: a single sample each, on a machine that other engineers' tests share.

| \`service.discovery.lease-ms\` | Chunks lost | Lease left at the kill | Back in the queue | **Taken again** |
|---|---|---|---|---|
${results.map(row).join('\n')}

The store work of a hand-over, timed bare in the same run (median of ${BARE_REPEATS}): the lease sweep's statement ${bare.sweep.toFixed(1)} ms, a take ${bare.take.toFixed(1)} ms. A loss is absorbed in the lease left at the kill (up to the whole lease: a chunk renews it every second) plus the wait for the next sweep (0 to 15 s) plus the rest of a chunk on the other worker (its chunk jobs, busy with the run's other chunks, take the lowest queued one when their current one ends; a job slot stays free for the sweep): the lease is the knob, against the risk that a worker stalled for longer than it (a PostgreSQL that does not answer) has its chunks taken away.
`);
  }));
}
