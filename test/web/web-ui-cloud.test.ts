/// <reference lib="dom" />
// The cloud connectors in the web UI (issue 40): AWS, AZURE and KUBERNETES credentials and targets
// made through the forms the UI builds from GET /credential-kinds and GET /discovery/methods (lists,
// a map of endpoints by service, nested endpoints, numbers, a PEM certificate), then read back
// through the API: each holds exactly what was typed.
import type { Browser, Page } from 'playwright-core';
import { certificate } from '../../src/tools/kubernetes/kubernetes-double.js';
import { ADMIN_PASSWORD, createPrincipals, USER_PASSWORD, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';
import { expectAccessible, launch, openPage, screenshot, signIn } from './browser.js';

interface Method { method: string; enabledByDefault: boolean; defaultPort: number | null; credentialKinds: string[] }
interface TargetRow { id: string; name: string; addresses: string[]; methods: string[]; ports: Record<string, number>; settings: Record<string, unknown>; credentialIds: string[] }
interface CredentialRow { id: string; name: string; kind: string; settings: Record<string, unknown>; secretFields: string[] }

const PEM = certificate().cert;

describe('the web UI with the cloud connectors', () => {
  let service: TestService;
  let p: Principals;
  let browser: Browser;
  let methods: Method[];

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    methods = (await p.discoveryAdminSession.get('/api/v1/discovery/methods')).body.data as Method[];
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  const credentials = async () => (await p.discoveryAdminSession.get('/api/v1/credentials?size=100')).body.data as CredentialRow[];
  const targets = async () => (await p.discoveryAdminSession.get('/api/v1/discovery/targets?size=200')).body.data as TargetRow[];
  const credentialNamed = async (name: string) => (await credentials()).find((c) => c.name === name) as CredentialRow;
  const targetNamed = async (name: string) => (await targets()).find((t) => t.name === name);

  /** A new credential of `kind` through the credentials page: settings by their field names, then the secret. */
  const newCredential = async (page: Page, name: string, kind: string, settings: Record<string, string>, secret: [string, string]) => {
    await page.getByRole('button', { name: 'New credential' }).click();
    await page.getByLabel('Kind').selectOption(kind);
    await page.getByLabel('Name', { exact: true }).fill(name);
    for (const [field, value] of Object.entries(settings)) await page.getByLabel(field, { exact: true }).fill(value);
    await page.getByLabel(new RegExp(`^${secret[0]} \\(write-only`)).fill(secret[1]);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: new RegExp(`^${name} ${kind}`) }).waitFor();
  };

  /** The target form opened (new), only `method` ticked, its ports and settings shown. */
  const newTarget = async (page: Page, name: string, address: string, method: string) => {
    await page.getByRole('button', { name: 'New target' }).click();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel(/Addresses/).fill(address);
    for (const m of methods.filter((x) => x.enabledByDefault)) await page.getByLabel(m.method, { exact: true }).uncheck();
    await page.getByLabel(method, { exact: true }).check();
    await page.getByRole('button', { name: 'Ports and settings' }).click();
    const own = page.getByRole('group', { name: method, exact: true });
    // The method says which credentials it takes, as the server declares them.
    const kinds = methods.find((m) => m.method === method)?.credentialKinds ?? [];
    await own.getByText(`Credentials of kind ${kinds.join(', ')}`).waitFor();
  };
  /** A field of the target form's settings whose label starts with `label`, then a space or its end. */
  const setting = (page: Page, label: string) => page.getByLabel(new RegExp(`^${label}( |$)`));
  const save = async (page: Page, name: string) => {
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: new RegExp(`^${name} Runs of ${name}`) }).waitFor();
  };

  it('makes AWS_ACCESS_KEY, AZURE_CLIENT_SECRET and KUBERNETES_TOKEN credentials from the kinds\' forms, each holding what was typed, its secret write-only', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/credentials`);
    await newCredential(page, 'aws reader', 'AWS_ACCESS_KEY', { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', roleArn: 'arn:aws:iam::123456789012:role/inventory-reader', externalId: 'inventory-7f3a' }, ['secretAccessKey', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']);
    await newCredential(page, 'azure reader', 'AZURE_CLIENT_SECRET', { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: '00000000-1111-2222-3333-444444444444' }, ['clientSecret', 'azure-client-secret-value-0123']);
    // A PEM certificate spans lines: it is typed into a text area and kept line for line.
    await page.getByRole('button', { name: 'New credential' }).click();
    await page.getByLabel('Kind').selectOption('KUBERNETES_TOKEN');
    expect(await page.getByLabel('caCertificate', { exact: true }).evaluate((e) => e.tagName)).toBe('TEXTAREA');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await newCredential(page, 'cluster reader', 'KUBERNETES_TOKEN', { apiServerUrl: 'https://k8s.example.test:6443', caCertificate: PEM }, ['token', 'eyJhbGciOiJSUzI1NiJ9.cluster-reader-token']);
    await expectAccessible(page);

    const held = async (name: string) => {
      const { kind, settings, secretFields } = await credentialNamed(name);
      return { kind, settings, secretFields };
    };
    expect(await held('aws reader')).toEqual({ kind: 'AWS_ACCESS_KEY', settings: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', roleArn: 'arn:aws:iam::123456789012:role/inventory-reader', externalId: 'inventory-7f3a' }, secretFields: ['secretAccessKey'] });
    expect(await held('azure reader')).toEqual({ kind: 'AZURE_CLIENT_SECRET', settings: { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: '00000000-1111-2222-3333-444444444444' }, secretFields: ['clientSecret'] });
    expect(await held('cluster reader')).toEqual({ kind: 'KUBERNETES_TOKEN', settings: { apiServerUrl: 'https://k8s.example.test:6443', caCertificate: PEM }, secretFields: ['token'] });
    expect(await page.content()).not.toContain('wJalrXUtnFEMI');
    expect(errors).toEqual([]);
  });

  it('makes AWS, AZURE and KUBERNETES targets with their settings (lists, endpoints by service, nested endpoints, numbers), each holding exactly what was typed', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/discovery`);
    const ids = Object.fromEntries(await Promise.all(['aws reader', 'azure reader', 'cluster reader'].map(async (n) => [n, (await credentialNamed(n)).id])));

    // AWS: a region that is no region code is refused, named as the form names it, and nothing is saved.
    await newTarget(page, 'aws account', 'sts.amazonaws.com', 'AWS');
    await setting(page, 'AWS regions').fill('eu-west-1\nmars-north-9x');
    await page.getByRole('button', { name: 'Save' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText(/^Settings, AWS, regions, item 2:/).waitFor();
    expect(await refusal.textContent()).not.toMatch(/body[./]/);
    expect(await targetNamed('aws account')).toBeUndefined();
    await setting(page, 'AWS regions').fill('eu-west-1\n\nus-east-1\n');
    await setting(page, 'AWS homeRegion').fill('eu-west-1');
    await page.getByLabel('AWS endpoints s3', { exact: true }).fill('http://127.0.0.1:4568');
    await page.getByLabel('AWS endpoints sts', { exact: true }).fill('https://sts.eu-west-1.amazonaws.com');
    await setting(page, 'AWS regionConcurrency').fill('2');
    await setting(page, 'AWS maxAttempts').fill('3');
    await page.getByLabel('aws reader (AWS_ACCESS_KEY)').check();
    await expectAccessible(page);
    await save(page, 'aws account');
    const aws = await targetNamed('aws account');
    expect(aws).toMatchObject({ addresses: ['sts.amazonaws.com'], methods: ['AWS'], credentialIds: [ids['aws reader']] });
    expect(aws?.settings).toEqual({ AWS: { regions: ['eu-west-1', 'us-east-1'], homeRegion: 'eu-west-1', endpoints: { s3: 'http://127.0.0.1:4568', sts: 'https://sts.eu-west-1.amazonaws.com' }, regionConcurrency: 2, maxAttempts: 3 } });
    expect(aws?.ports.AWS).toBe(methods.find((m) => m.method === 'AWS')?.defaultPort);

    // AZURE: subscriptions one a line, the two endpoints of a nested group, a PEM authority, a retry count of 0.
    await newTarget(page, 'azure tenant', 'management.azure.com', 'AZURE');
    await setting(page, 'AZURE subscriptions').fill('8a4b5c6d-1e2f-4a3b-9c8d-7e6f5a4b3c2d\n1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e');
    const endpoints = page.getByRole('group', { name: /^AZURE endpoints/ });
    await endpoints.getByLabel(/^AZURE endpoints resourceManager/).fill('https://management.usgovcloudapi.net');
    await endpoints.getByLabel(/^AZURE endpoints login/).fill('https://login.microsoftonline.us');
    await setting(page, 'AZURE caCertificate').fill(PEM);
    await setting(page, 'AZURE maxRetries').fill('0');
    await setting(page, 'AZURE timeoutMs').fill('30000');
    await page.getByLabel('azure reader (AZURE_CLIENT_SECRET)').check();
    await save(page, 'azure tenant');
    const azure = await targetNamed('azure tenant');
    expect(azure).toMatchObject({ addresses: ['management.azure.com'], methods: ['AZURE'], credentialIds: [ids['azure reader']] });
    expect(azure?.settings).toEqual({
      AZURE: {
        subscriptions: ['8a4b5c6d-1e2f-4a3b-9c8d-7e6f5a4b3c2d', '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e'],
        endpoints: { resourceManager: 'https://management.usgovcloudapi.net', login: 'https://login.microsoftonline.us' },
        caCertificate: PEM, maxRetries: 0, timeoutMs: 30000,
      },
    });

    // KUBERNETES: the API server's port and the paging of its lists.
    await newTarget(page, 'cluster', '10.96.0.1', 'KUBERNETES');
    await page.getByLabel('KUBERNETES port', { exact: true }).fill('6443');
    await setting(page, 'KUBERNETES pageSize').fill('250');
    await setting(page, 'KUBERNETES maxObjects').fill('20000');
    await page.getByLabel('cluster reader (KUBERNETES_TOKEN)').check();
    await save(page, 'cluster');
    const cluster = await targetNamed('cluster');
    expect(cluster).toMatchObject({ addresses: ['10.96.0.1'], methods: ['KUBERNETES'], credentialIds: [ids['cluster reader']], settings: { KUBERNETES: { pageSize: 250, maxObjects: 20000 } } });
    expect(cluster?.settings).toEqual({ KUBERNETES: { pageSize: 250, maxObjects: 20000 } });
    expect(cluster?.ports.KUBERNETES).toBe(6443);
    expect(errors).toEqual([]);
  });

  it('edits a cloud target: its settings shown as saved, one changed and one cleared, the rest kept', async () => {
    const { page, errors } = await openPage(browser, { width: 1440, height: 900 });
    await signIn(page, service.url, 'discovery-admin', USER_PASSWORD);
    await page.goto(`${service.url}/discovery`);
    const before = await targetNamed('aws account');
    await page.getByRole('row', { name: /^aws account Runs of aws account/ }).getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Ports and settings' }).click();
    expect(await setting(page, 'AWS regions').inputValue()).toBe('eu-west-1\nus-east-1');
    expect(await page.getByLabel('AWS endpoints s3', { exact: true }).inputValue()).toBe('http://127.0.0.1:4568');
    expect(await page.getByLabel('AWS endpoints ec2', { exact: true }).inputValue()).toBe('');
    expect(await setting(page, 'AWS maxAttempts').inputValue()).toBe('3');
    await setting(page, 'AWS regions').fill('eu-west-1\nus-east-1\nap-southeast-2');
    await page.getByLabel('AWS endpoints sts', { exact: true }).fill('');
    await setting(page, 'AWS maxAttempts').fill('');
    await expectAccessible(page);
    await screenshot(page, 'cloud-target-form');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'New target' }).waitFor();
    const after = await targetNamed('aws account');
    expect(after?.settings).toEqual({ AWS: { regions: ['eu-west-1', 'us-east-1', 'ap-southeast-2'], homeRegion: 'eu-west-1', endpoints: { s3: 'http://127.0.0.1:4568' }, regionConcurrency: 2 } });
    expect({ ...after, settings: undefined, updatedAt: undefined }).toEqual({ ...before, settings: undefined, updatedAt: undefined });
    expect(errors).toEqual([]);
  });
});
