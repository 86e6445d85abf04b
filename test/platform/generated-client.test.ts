// A client generated from api.yaml with openapi-typescript type-checks a program that uses every
// list, export and write (test/fixtures/generated-client/program.ts) without a cast, and that
// program runs against the real service.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { fromProjectRoot } from '../../src/platform/project-root.js';
import { signIn } from '../support/api-client.js';
import { ADMIN_PASSWORD } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

const run = promisify(execFile);
// Operations that answer one resource or the service's own state: neither list, export nor write.
const NOT_LISTS_EXPORTS_OR_WRITES = ['getHealth', 'getReadiness', 'getLiveness', 'getMetrics', 'getMe', 'getUser', 'getCredential', 'getAssetType', 'getTarget'];

describe('a client generated from api.yaml', () => {
  let service: TestService;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'generated-client-'));
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    copyFileSync(fromProjectRoot('test', 'fixtures', 'generated-client', 'program.ts'), path.join(dir, 'program.ts'));
    await run(fromProjectRoot('node_modules', '.bin', 'openapi-typescript'), [fromProjectRoot('api.yaml'), '--output', path.join(dir, 'api.ts')]);
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    // Generous: other test runs share this machine's two cores.
  }, 240_000);
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const tsc = (args: string[]) =>
    run(process.execPath, [fromProjectRoot('node_modules', 'typescript', 'bin', 'tsc'), '--ignoreConfig', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--types', 'node', '--typeRoots', fromProjectRoot('node_modules', '@types'), ...args, path.join(dir, 'program.ts')]).catch((error: { stdout: string }) => {
      throw new Error(`tsc: ${error.stdout}`);
    });

  it('type-checks the program (strict, no cast on any answer)', async () => {
    await tsc(['--noEmit']);
    const program = readFileSync(path.join(dir, 'program.ts'), 'utf8');
    expect(program).not.toMatch(/\bas any\b|: any\b/);
  }, 120_000);

  it('runs the program against the service: every list, export and write answers as typed', async () => {
    await tsc(['--outDir', path.join(dir, 'out')]);
    const admin = await signIn(service.url, 'admin', ADMIN_PASSWORD);
    const key = (await admin.post('/api/v1/integration-keys', { name: 'generated-client' })).body.data.token as string;
    // A host key that a host replaced since it was pinned, as an SSH scan records it: the program accepts the new one.
    await service.running.container.db('ssh_host_keys').insert({
      address: '192.0.2.22', port: 22, key_type: 'ssh-rsa', fingerprint: 'SHA256:generated-client-pinned',
      presented_fingerprint: 'SHA256:generated-client-presented', presented_key_type: 'ssh-ed25519', presented_at: new Date(),
    });
    const { stdout } = await run(process.execPath, [path.join(dir, 'out', 'program.js')], { env: { PATH: process.env.PATH, SERVICE_URL: service.url, SERVICE_KEY: key } }).catch((error: { stderr: string }) => {
      throw new Error(`program: ${error.stderr}`);
    });
    const report = JSON.parse(stdout);

    const doc = parse(readFileSync(fromProjectRoot('api.yaml'), 'utf8'));
    const expected = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.entries(item as Record<string, { operationId: string }>)
        .filter(([method, op]) => ['get', 'put', 'post', 'delete'].includes(method) && !NOT_LISTS_EXPORTS_OR_WRITES.includes(op.operationId))
        .map(([method]) => `${method.toUpperCase()} ${p}`),
    );
    expect(new Set(report.used)).toEqual(new Set(expected));

    expect(['COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED']).toContain(report.runStatus);
    expect(report.runs).toEqual(['CANCELLED', report.runStatus].sort());
    // The scanner's chunk: its one address, pinned at first sight, first counted, ended; the run loaded; the scanner revoked.
    expect(report.scanner).toBe('192.0.2.50 null 0 ENDED COMPLETED REVOKED');
    expect(report.scanners).toEqual(['gc-scanner gc-branch gc-1 1']);
    // The run's one chunk, as its list names who ran it: the scanner, by name and id.
    expect(report.scannerChunks).toEqual(['0 192.0.2.50-192.0.2.50 DONE 1/1 1 SCANNER gc-scanner true']);
    expect(report.reactivated).toBe('ACTIVE');
    // From the instant the import made the VM (its edge to the hypervisor written just after) to now:
    // the hypervisor appeared; the VM, decommissioned and reactivated since, is as it was.
    expect(report.topologyChanges).toEqual(['gc-hv-01 APPEARED ']);
    // Newest first: the reactivation and the decommissioning by the program's integration key, after the import made it.
    expect(report.history).toEqual(['STATUS DECOMMISSIONED ACTIVE INTEGRATION_KEY', 'STATUS ACTIVE DECOMMISSIONED INTEGRATION_KEY', expect.stringMatching(/^STATUS null ACTIVE /)]);
    expect(report.pin).toBe('SSH_HOST_KEY SHA256:generated-client-presented ssh-ed25519 null');
    expect(report.insightFeeds).toContain('stale-assets');
    expect(report.insightFeed).toMatch(/^stale-assets 10 (true|false) \d+$/);
    // No exporter sent flows to this service: the rankings are empty, over the rollups of the last hour.
    expect(report.flowTalkers).toMatch(/^5 (flow_endpoint_(1m|5m|1h),?)+ $/);
    expect(report.flowConversations).toBe('packets 0 ');
    expect(report.flowExporters).toEqual([]);
    // service.ai.enabled is false here: the diagnosis says so, without a provider.
    expect([report.diagnosisStatus, report.diagnosedStatus]).toEqual(['DISABLED', 'DISABLED']);
    expect(report.queryRows).toEqual([{ name: 'gc-hv-01' }]);
    expect(report.assetParent).toBe('gc-hv-01');
    expect(report.siteValues).toMatch(/^site 10 false (\S+=\d+,)*gc-site=1(,|$)/);
    expect(report.relationships).toContain('gc-hv-01 HOSTS_VM gc-vm-01');
    expect(report.storageParents).toContainEqual(['PHYSICAL_HOST', 'HYPERVISOR', 'VM', 'CONTAINER', 'SERVER']);
    expect(report.credentialSettings).toEqual(['authNoPriv']);
    expect(report.credentialTargets).toEqual(['gc-target']);
    expect(report.credentialTest).toMatch(/^SNMP FAILED [A-Z_]+/);
    expect(report.auditActions).toEqual(expect.arrayContaining(['credential.create', 'credential.test']));
    expect(report.flowSeries).toBe('PT5M 0');
    expect(report.search).toContain('VM 1 gc-vm-01');
    expect(report.myTokens).toEqual(['gc-token']);
    expect(report.exportAsset).toEqual(['gc-vm-01 VM {}']);
    expect(report.exportSoftware).toContain('openssl 3.0.15 dpkg');
    expect(report.exportProcesses).toEqual(['812 nginx root']);
    expect(report.exportServices).toContain('ssh.service tcp/22');
    expect(report.exportRelationships).toContain('gc-hv-01 HOSTS_VM gc-vm-01 true');
    expect(report.exportInterfaces).toContain('gc-vm-01 eth0 2 10.0.1.21/24');
    expect(report.csvHeaders[0]).toMatch(/^id,displayName,assetType,/);
    expect(report.csvHeaders[1]).toBe('assetId,assetDisplayName,assetHostname,packageName,version,publisher,installDate,packageManager');
  }, 300_000);
});
