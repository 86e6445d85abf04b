// The topology of an estate whose relationships loop back to the asset asked about: each asset is
// listed once, at its nearest depth, however many paths reach it (a graph view refuses a node
// listed twice).
import { importEstate, LOOPED_ESTATE, type EstateIds } from '../support/estate.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('GET /topology/{id}/neighbors on a looped estate', () => {
  let service: TestService;
  let p: Principals;
  let ring: EstateIds;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    ring = await importEstate(p.integrationKey, LOOPED_ESTATE);
  });
  afterAll(() => service.stop());

  it.each([false, true])('when the walk at depth 5 loops back to the root (cables followed: %s), every asset is listed once, the root at depth 0 only', async (cables) => {
    const res = await p.viewer.get(`/api/v1/topology/${ring.a}/neighbors?depth=5${cables ? '&followInterfaceLinks=true' : ''}`);
    expect(res.status).toBe(200);
    const nodes = res.body.data.nodes as { id: string; depth: number }[];
    const listed = nodes.map((n) => n.id);
    expect(listed).toHaveLength(new Set(listed).size);
    const key = (id: string) => Object.keys(ring).find((k) => ring[k] === id);
    expect(Object.fromEntries(nodes.map((n) => [key(n.id), n.depth]))).toEqual({ a: 0, b: 1, d: 1, vm: 1, c: 2 });
    expect(res.body.data.edges).toHaveLength(5);
  });
});
