// Every write completes with its audit event or leaves nothing. The failure after the first write
// is real: a trigger, made in this file's own database and dropped after, refuses a row (the audit
// row, or an import's identity rows), and PostgreSQL undoes the request's transaction. The same
// request then succeeds in full.
import { ApiClient, signIn } from '../support/api-client.js';
import { ADMIN_PASSWORD } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('a write whose audit event cannot be written', () => {
  let service: TestService;
  let admin: ApiClient;
  let key: ApiClient;

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    admin = await signIn(service.url, 'admin', ADMIN_PASSWORD);
    const created = await admin.post('/api/v1/integration-keys', { name: 'audited-writes' });
    key = new ApiClient(service.url, { kind: 'bearer', token: created.body.data.token });
  }, 240_000);
  afterAll(() => service.stop());

  const db = () => service.running.container.db;
  const count = async (table: string, where: Record<string, string> = {}) => Number((await db()(table).where(where).count<{ c: string }[]>('* as c'))[0]?.c);
  const audited = (action: string) => count('audit_events', { action });
  const graphAssets = async (hostname: string) =>
    (await service.running.container.driver.executeQuery('MATCH (a:Asset {hostname: $hostname}) RETURN a.id AS id', { hostname })).records.map((r) => r.get('id') as string);

  /** Runs `work` while a trigger refuses the rows of `table` that match `when` (a condition on NEW). */
  async function refusing<T>(table: string, when: string, work: () => Promise<T>): Promise<T> {
    await db().raw("CREATE FUNCTION test_refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$");
    await db().raw(`CREATE TRIGGER test_refuse_row BEFORE INSERT ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION test_refuse_row()`);
    try {
      return await work();
    } finally {
      await db().raw(`DROP TRIGGER test_refuse_row ON ${table}`);
      await db().raw('DROP FUNCTION test_refuse_row()');
    }
  }
  const refusingAudit = <T>(action: string, work: () => Promise<T>) => refusing('audit_events', `NEW.action = '${action}'`, work);

  function expectFailed(res: { status: number; headers: Headers }): void {
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  }

  it('creates no integration key, and none that works, when the audit row is refused; the same request then creates one', async () => {
    const keys = await count('api_tokens');
    const events = await audited('integration-key.create');
    expectFailed(await refusingAudit('integration-key.create', () => admin.post('/api/v1/integration-keys', { name: 'refused-key' })));
    expect(await count('api_tokens')).toBe(keys);
    expect(await audited('integration-key.create')).toBe(events);

    const created = await admin.post('/api/v1/integration-keys', { name: 'refused-key' });
    expect(created.status).toBe(201);
    expect((await new ApiClient(service.url, { kind: 'bearer', token: created.body.data.token }).get('/api/v1/assets')).status).toBe(200);
    expect(await audited('integration-key.create')).toBe(events + 1);
  });

  it('leaves an integration key working when its revocation cannot be audited; the same request then revokes it', async () => {
    const created = await admin.post('/api/v1/integration-keys', { name: 'revoked-later' });
    const holder = new ApiClient(service.url, { kind: 'bearer', token: created.body.data.token });
    expect((await holder.get('/api/v1/assets')).status).toBe(200);
    expectFailed(await refusingAudit('integration-key.revoke', () => admin.delete(`/api/v1/integration-keys/${created.body.data.id}`)));
    expect((await holder.get('/api/v1/assets')).status).toBe(200);
    expect(await audited('integration-key.revoke')).toBe(0);

    expect((await admin.delete(`/api/v1/integration-keys/${created.body.data.id}`)).status).toBe(200);
    expect((await holder.get('/api/v1/assets')).status).toBe(401);
    expect(await audited('integration-key.revoke')).toBe(1);
  });

  it('stores no credential and no secret when the audit row is refused; the same request then stores both', async () => {
    const body = { name: 'refused-credential', kind: 'SSH_PASSWORD', matchPatterns: ['10.8.0.0/24'], settings: { username: 'ops' }, secrets: { password: 'CANARY-secret-1' } };
    const secrets = await count('credential_secrets');
    expectFailed(await refusingAudit('credential.create', () => key.post('/api/v1/credentials', body)));
    expect(await count('credentials', { name: body.name })).toBe(0);
    expect(await count('credential_secrets')).toBe(secrets);
    expect(await audited('credential.create')).toBe(0);

    const created = await key.post('/api/v1/credentials', body);
    expect(created.status).toBe(201);
    expect((await service.running.container.credentials.reveal(created.body.data.id)).secrets).toEqual({ password: 'CANARY-secret-1' });
    expect(await audited('credential.create')).toBe(1);

    expectFailed(await refusingAudit('credential.delete', () => key.delete(`/api/v1/credentials/${created.body.data.id}`)));
    expect((await key.get(`/api/v1/credentials/${created.body.data.id}`)).status).toBe(200);
    expect(await count('credential_secrets')).toBe(secrets + 1);
  });

  it('stores no discovery target, and changes none, when the audit row is refused; the same requests then succeed', async () => {
    const body = { name: 'refused-target', addresses: ['192.0.2.0/28'] };
    expectFailed(await refusingAudit('target.create', () => key.post('/api/v1/discovery/targets', body)));
    expect(await count('discovery_targets', { name: body.name })).toBe(0);
    expect(await audited('target.create')).toBe(0);

    const created = await key.post('/api/v1/discovery/targets', body);
    expect(created.status).toBe(201);
    expect(await audited('target.create')).toBe(1);

    const target = `/api/v1/discovery/targets/${created.body.data.id}`;
    expectFailed(await refusingAudit('target.update', () => key.put(target, { name: 'renamed-target' })));
    expect((await key.get(target)).body.data.name).toBe('refused-target');
    expect((await key.put(target, { name: 'renamed-target' })).body.data.name).toBe('renamed-target');
    expect(await audited('target.update')).toBe(1);
  });

  it('leaves an asset as it was when its decommission cannot be audited; the same request then decommissions it', async () => {
    const imported = await key.post('/api/v1/import', { source: 'audited-writes', assets: [{ key: 'd', assetType: 'SERVER', hostname: 'decommissioned-later' }] });
    const asset = `/api/v1/assets/${imported.body.data.assets[0].id}`;
    expectFailed(await refusingAudit('asset.decommission', () => key.post(`${asset}/decommission`)));
    expect((await key.get(asset)).body.data.status).toBe('ACTIVE');
    expect(await audited('asset.decommission')).toBe(0);

    expect((await key.post(`${asset}/decommission`)).status).toBe(200);
    expect((await key.get(asset)).body.data.status).toBe('DECOMMISSIONED');
    expect(await audited('asset.decommission')).toBe(1);
  });

  describe('an import', () => {
    const bundle = (hostname: string) => ({ source: 'audited-writes', assets: [{ key: 'h', assetType: 'SERVER', hostname }] });
    const rowsOf = async (ids: string[]) => ({
      facts: Number((await db()('asset_facts').whereIn('asset_id', ids).count<{ c: string }[]>('* as c'))[0]?.c),
      identities: Number((await db()('asset_identifiers').whereIn('asset_id', ids).count<{ c: string }[]>('* as c'))[0]?.c),
      names: Number((await db()('asset_names').whereIn('asset_id', ids).count<{ c: string }[]>('* as c'))[0]?.c),
    });

    it('whose identity rows are refused after its facts were written leaves no fact, no identity, no name, no asset and no audit row; the same import then loads it', async () => {
      const facts = await count('asset_facts');
      const imports = await audited('asset.import');
      expectFailed(await refusing('asset_identifiers', "NEW.rule IS NOT NULL", () => key.post('/api/v1/import', bundle('refused-identity'))));
      expect(await count('asset_facts')).toBe(facts);
      expect(await count('asset_names', { display_name: 'refused-identity' })).toBe(0);
      expect(await graphAssets('refused-identity')).toEqual([]);
      expect(await audited('asset.import')).toBe(imports);

      const loaded = await key.post('/api/v1/import', bundle('refused-identity'));
      expect(loaded.status).toBe(200);
      expect(loaded.body.data.assets[0]).toMatchObject({ created: true });
      expect(await graphAssets('refused-identity')).toEqual([loaded.body.data.assets[0].id]);
      const rows = await rowsOf([loaded.body.data.assets[0].id]);
      expect(rows.facts).toBeGreaterThan(0);
      expect(rows.identities).toBeGreaterThan(0);
      expect(rows.names).toBe(1);
      expect(await audited('asset.import')).toBe(imports + 1);
    });

    it('whose audit row is refused after the graph write is repaired by the same import: the same asset, no twin, one audit row', async () => {
      const imports = await audited('asset.import');
      expectFailed(await refusingAudit('asset.import', () => key.post('/api/v1/import', bundle('refused-audit'))));
      const written = await graphAssets('refused-audit');
      expect(await audited('asset.import')).toBe(imports);

      const loaded = await key.post('/api/v1/import', bundle('refused-audit'));
      expect(loaded.status).toBe(200);
      expect(await graphAssets('refused-audit')).toEqual([loaded.body.data.assets[0].id]);
      // What the failed request wrote, if anything, is the asset the retry found again.
      for (const id of written) expect(id).toBe(loaded.body.data.assets[0].id);
      expect(await audited('asset.import')).toBe(imports + 1);
    });
  });
});
