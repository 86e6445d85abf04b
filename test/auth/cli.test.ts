import { spawn } from 'node:child_process';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import { ApiClient, signIn } from '../support/api-client.js';
import { ADMIN_PASSWORD } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('the operator command line (npm run cli)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
  });
  afterAll(() => service.stop());

  // The compiled CLI (npm test builds it), against the service's database and data folder.
  const cli = (args: string[], stdin = '', databaseUrl = service.database.url): Promise<CliResult> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [fromProjectRoot('dist', 'cli.js'), ...args], {
        env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, SERVICE_DATA_DIR: service.dataDir },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });

  it('creates an integration key, printed alone on standard output, that the service accepts', async () => {
    const created = await cli(['keys', 'create', '--name', 'cmdb-sync']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^svcm_[0-9A-Za-z]{38}\n$/);
    const key = new ApiClient(service.url, { kind: 'key-header', token: created.stdout.trim() });
    expect((await key.get('/api/v1/me')).body.data).toMatchObject({ kind: 'INTEGRATION_KEY', name: 'cmdb-sync' });

    const listed = await cli(['keys', 'list']);
    expect(listed.code).toBe(0);
    const line = listed.stdout.split('\n').find((l) => l.includes('cmdb-sync')) as string;
    expect(line).toContain('ACTIVE');
    expect(listed.stdout).not.toContain(created.stdout.trim());

    const revoked = await cli(['keys', 'revoke', line.split('\t')[0] as string]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('REVOKED');
    expect((await key.get('/api/v1/me')).status).toBe(401);
  });

  it('creates a user whose password comes from standard input', async () => {
    const created = await cli(['users', 'create', '--username', 'operator', '--role', 'VIEWER', '--role', 'API_USER'], 'operator-password-77\n');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const operator = await signIn(service.url, 'operator', 'operator-password-77');
    expect((await operator.get('/api/v1/me')).body.data.roles).toEqual(['API_USER', 'VIEWER']);
    const admin = await signIn(service.url, 'admin', ADMIN_PASSWORD);
    const audit = await admin.get('/api/v1/audit-events?action=user.create');
    expect(audit.body.data[0]).toMatchObject({ actorKind: 'SYSTEM', actorName: 'command line', details: { username: 'operator' } });
  });

  it.each([
    [['help'], /^usage: npm run cli -- <command>[\s\S]*keys create[\s\S]*users create/],
    [['--help'], /^usage: npm run cli -- <command>[\s\S]*keys revoke ID/],
    [['keys', 'create', '--help'], /^usage: npm run cli -- keys create --name NAME[^\n]*\nCreates an integration key/],
    [['help', 'users', 'create'], /^usage: npm run cli -- users create[^\n]*\n[^\n]*standard input/],
    [['keys', 'revoke', '-h'], /^usage: npm run cli -- keys revoke ID\nRevokes/],
  ])('prints help for %j on standard output and exits 0, touching no store', async (args, text) => {
    // No database is given: a help that opened one would fail.
    const result = await cli(args, '', 'postgres://nobody@127.0.0.1:1/none');
    expect(result).toEqual({ code: 0, stdout: expect.stringMatching(text), stderr: '' });
  });

  it.each([
    [['help', 'keys', 'rotate'], '', /no command "keys rotate"/],
    [['users', 'create', '--username', 'x', '--role', 'KING'], 'pw-long-enough-1', /unknown role KING/],
    [['users', 'create', '--username', 'x', '--role', 'VIEWER'], 'short', /at least 12 characters/],
    [['keys', 'create'], '', /--name/],
    [['keys', 'rotate'], '', /usage/],
  ])('refuses %j with exit code 2 and a message', async (args, stdin, message) => {
    const result = await cli(args, stdin);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});
