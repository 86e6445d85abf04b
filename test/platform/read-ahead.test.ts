// ReadAhead (platform/neo4j/read-ahead.ts) on the real Neo4j: a page read ahead is served only if
// nothing committed between its read and the request for it, and once.
import { ReadAhead, type ReadAheadOutcome } from '../../src/platform/neo4j/read-ahead.js';
import { ADMIN_PASSWORD } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('ReadAhead', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
  });
  afterAll(() => service.stop());

  it('serves a value read ahead while nothing has committed since its read, once, and refuses one read before a commit', async () => {
    const { graph, driver, config } = service.running.container;
    const outcomes: ReadAheadOutcome[] = [];
    const ahead = new ReadAhead<string>(graph, 4, 60_000, (outcome) => outcomes.push(outcome));
    const readNow = (value: string) => async () => ({ value, bookmarks: [await graph.bookmark()] });

    await ahead.start('unchanged', readNow('page 2'));
    expect(await ahead.take('unchanged')).toBe('page 2');
    expect(await ahead.take('unchanged')).toBeUndefined();

    await ahead.start('changed', readNow('page 3'));
    await driver.executeQuery('CREATE (:ReadAheadProbe)', {}, { database: config.neo4jDatabase });
    expect(await ahead.take('changed')).toBeUndefined();
    expect(await ahead.take('never read')).toBeUndefined();
    expect(outcomes).toEqual(['served', 'stale']);
  });
});
