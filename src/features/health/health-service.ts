// Reports whether each store answers. A store that hangs counts as down after the probe time-out,
// so /health itself never hangs.
import type { Driver } from 'neo4j-driver';
import { pingNeo4j } from '../../platform/neo4j/neo4j-graph.js';
import { pingPostgres, type Database } from '../../platform/postgres/postgres-client.js';

export type ComponentStatus = 'UP' | 'DOWN';

export interface HealthReport {
  status: ComponentStatus;
  components: { postgresql: { status: ComponentStatus }; neo4j: { status: ComponentStatus } };
}

const PROBE_TIMEOUT_MS = 2000;

async function probe(check: () => Promise<void>, timeoutMs: number): Promise<ComponentStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ComponentStatus>((resolve) => {
    timer = setTimeout(() => resolve('DOWN'), timeoutMs);
  });
  const answer = check().then(
    () => 'UP' as const,
    () => 'DOWN' as const,
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class HealthService {
  constructor(
    private readonly db: Database,
    private readonly driver: Driver,
    private readonly neo4jDatabase: string,
    private readonly timeoutMs = PROBE_TIMEOUT_MS,
  ) {}

  async check(): Promise<HealthReport> {
    const [postgresql, neo4j] = await Promise.all([
      probe(() => pingPostgres(this.db), this.timeoutMs),
      probe(() => pingNeo4j(this.driver, this.neo4jDatabase), this.timeoutMs),
    ]);
    const status = postgresql === 'UP' && neo4j === 'UP' ? 'UP' : 'DOWN';
    return { status, components: { postgresql: { status: postgresql }, neo4j: { status: neo4j } } };
  }
}
