import { randomBytes } from 'node:crypto';
import { CREDENTIAL_KINDS, KINDS, type CredentialKind } from '../../src/features/credentials/credential-kinds.js';
import { VaultCipher } from '../../src/features/credentials/vault-cipher.js';
import type { ApiClient } from '../support/api-client.js';
import type { JsonResponse } from '../support/http.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

// Settings that make every secret field of the kind meaningful.
const SETTINGS: Record<CredentialKind, Record<string, unknown>> = {
  SSH_PASSWORD: { username: 'root' },
  SSH_KEY: { username: 'deploy' },
  SNMP_V2C: {},
  SNMP_V3: { username: 'monitor', securityLevel: 'authPriv', authProtocol: 'SHA256', privProtocol: 'AES' },
  WINRM: { username: 'Administrator', port: 5986, useTls: true },
  HTTP_BASIC: { username: 'vcenter-reader', baseUrl: 'https://vcenter.example.com' },
  CLOUD_ACCESS_KEY: { provider: 'AWS', accessKeyId: 'AKIAEXAMPLE', region: 'eu-west-1' },
  DNS_TSIG: { keyName: 'transfer-key', algorithm: 'hmac-sha256' },
  AWS_ACCESS_KEY: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', roleArn: 'arn:aws:iam::123456789012:role/inventory-reader', externalId: 'inventory-7f3a' },
  AZURE_CLIENT_SECRET: { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: 'b0c3a2e1-4f5d-4e6a-9b7c-8d9e0f1a2b3c' },
  LDAP_BIND: { bindDn: 'cn=inventory,ou=service,dc=example,dc=com', baseDn: 'dc=example,dc=com' },
  KUBERNETES_TOKEN: { apiServerUrl: 'https://k8s.example.com:6443' },
};

const marker = (label: string) => `MARKER${randomBytes(8).toString('hex')}${label.replace(/\W/g, '')}`;

describe('the credentials vault', () => {
  let service: TestService;
  let p: Principals;
  let vault: ApiClient;
  const markers: string[] = [];
  const answers: JsonResponse[] = [];

  const call = async (res: Promise<JsonResponse>) => {
    const answer = await res;
    answers.push(answer);
    return answer;
  };
  const secretsFor = (kind: CredentialKind, label: string) => {
    const secrets: Record<string, string> = {};
    for (const field of Object.keys(KINDS[kind].secrets)) {
      secrets[field] = marker(`${kind}${field}${label}`);
      markers.push(secrets[field] as string);
    }
    return secrets;
  };

  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    vault = p.discoveryAdminSession;
  });
  afterAll(() => service.stop());

  it('never lets a secret out: no answer, header, log line or plain database column carries one', async () => {
    const ids: string[] = [];
    for (const kind of CREDENTIAL_KINDS) {
      const created = await call(vault.post('/api/v1/credentials', {
        name: `cred-${kind}`, kind, description: 'lab', matchPatterns: ['10.1.0.0/16', '*.lab.example.com'], settings: SETTINGS[kind], secrets: secretsFor(kind, 'v1'),
      }));
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ kind, hasSecret: true, secretFields: Object.keys(KINDS[kind].secrets).sort() });
      const id = created.body.data.id;
      ids.push(id);
      await call(vault.get(`/api/v1/credentials/${id}`));
      // A new match pattern, secrets left out: kept, and still not shown.
      const moved = await call(vault.put(`/api/v1/credentials/${id}`, { matchPatterns: ['192.0.2.0/24'] }));
      expect(moved.status).toBe(200);
      expect(moved.body.data).toMatchObject({ matchPatterns: ['192.0.2.0/24'], hasSecret: true });
      await call(vault.put(`/api/v1/credentials/${id}`, { secrets: secretsFor(kind, 'v2') }));
      // A refused update that carries a secret does not echo it.
      const refusedSecret = marker(`${kind}bad`);
      markers.push(refusedSecret);
      const refused = await call(vault.put(`/api/v1/credentials/${id}`, { secrets: { notAField: refusedSecret } }));
      expect(refused.status).toBe(400);
    }
    for (const client of [vault, p.adminSession, p.integrationKey]) {
      await call(client.get('/api/v1/credentials?size=1000'));
      await call(client.get('/api/v1/credentials?kind=SSH_KEY,SNMP_V3'));
    }
    await call(p.adminSession.get('/api/v1/audit-events?size=1000'));
    for (const id of ids.slice(0, 2)) await call(vault.delete(`/api/v1/credentials/${id}`));

    const realMarkers = markers;
    const secretFieldCount = CREDENTIAL_KINDS.reduce((n, kind) => n + Object.keys(KINDS[kind].secrets).length, 0);
    expect(realMarkers).toHaveLength(2 * secretFieldCount + CREDENTIAL_KINDS.length);
    const responses = answers.map((a) => `${JSON.stringify([...a.headers.entries()])}\n${a.text}`).join('\n');
    const logs = service.logLines.join('\n');
    const db = service.running.container.db;
    const tables = await db('pg_tables').where({ schemaname: 'public' }).pluck('tablename');
    let dump = '';
    for (const table of tables) dump += (await db.raw(`SELECT row_to_json(t)::text AS row FROM "${table}" t`)).rows.map((r: { row: string }) => r.row).join('\n');
    for (const m of realMarkers) {
      expect(responses).not.toContain(m);
      expect(logs).not.toContain(m);
      expect(dump).not.toContain(m);
    }
    // What is stored is ciphertext, one row per secret field, and it opens to the last value set.
    const stored = await db('credential_secrets').whereIn('credential_id', ids.slice(2)).select('ciphertext', 'key_version');
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) expect(row.key_version).toBe(1);
    const revealed = await service.running.container.credentials.reveal(ids[3] as string);
    expect(Object.values(revealed.secrets).every((v) => v.includes('v2'))).toBe(true);
  });

  it('binds each ciphertext to its credential and field', () => {
    const cipher = new VaultCipher(new Map([[1, randomBytes(32)]]));
    const sealed = cipher.seal('cred-a', 'password', 's3cret');
    expect(cipher.open('cred-a', 'password', sealed)).toBe('s3cret');
    expect(() => cipher.open('cred-b', 'password', sealed)).toThrow();
    expect(() => cipher.open('cred-a', 'community', sealed)).toThrow();
  });

  it('encrypts with the newest key version and still opens the older ones', () => {
    const old = randomBytes(32);
    const sealedOld = new VaultCipher(new Map([[1, old]])).seal('c', 'password', 'before rotation');
    const rotated = new VaultCipher(new Map([[1, old], [2, randomBytes(32)]]));
    expect(rotated.open('c', 'password', sealedOld)).toBe('before rotation');
    expect(rotated.seal('c', 'password', 'after').keyVersion).toBe(2);
  });

  it('keeps a secret an update leaves out, and removes an optional one set to null', async () => {
    const created = await vault.post('/api/v1/credentials', {
      name: 'keyed', kind: 'SSH_KEY', matchPatterns: ['10.9.0.0/24'], settings: { username: 'ops' }, secrets: { privateKey: 'KEY-ONE', passphrase: 'PASS-ONE' },
    });
    const id = created.body.data.id;
    await vault.put(`/api/v1/credentials/${id}`, { description: 'renamed', settings: { username: 'ops2' } });
    expect((await service.running.container.credentials.reveal(id)).secrets).toEqual({ privateKey: 'KEY-ONE', passphrase: 'PASS-ONE' });
    const cleared = await vault.put(`/api/v1/credentials/${id}`, { secrets: { passphrase: null } });
    expect(cleared.body.data.secretFields).toEqual(['privateKey']);
    const required = await vault.put(`/api/v1/credentials/${id}`, { secrets: { privateKey: null } });
    expect(required.status).toBe(400);
    expect(required.body.errors).toEqual([{ path: 'body.secrets.privateKey', message: 'is required for SSH_KEY' }]);
  });

  it.each([
    ['an unknown top-level field', { name: 'x', kind: 'SNMP_V2C', matchPatterns: [], secrets: { community: 'c' }, owner: 'me' }],
    ['an unknown setting', { name: 'x', kind: 'SNMP_V2C', matchPatterns: [], settings: { port: 161 }, secrets: { community: 'c' } }],
    ['an unknown secret field', { name: 'x', kind: 'SNMP_V2C', matchPatterns: [], secrets: { community: 'c', password: 'p' } }],
    ['a missing required secret', { name: 'x', kind: 'SSH_PASSWORD', matchPatterns: [], settings: { username: 'u' }, secrets: {} }],
    ['an SNMPv3 authPriv without privProtocol', { name: 'x', kind: 'SNMP_V3', matchPatterns: [], settings: { username: 'u', securityLevel: 'authPriv', authProtocol: 'SHA' }, secrets: { authKey: 'a', privKey: 'p' } }],
    ['a bad match pattern', { name: 'x', kind: 'SNMP_V2C', matchPatterns: ['10.0.0.0/33'], secrets: { community: 'c' } }],
    ['an unknown kind', { name: 'x', kind: 'TELNET', matchPatterns: [], secrets: { password: 'p' } }],
  ])('refuses %s with a 400 that names it, and stores nothing', async (_what, body) => {
    const before = (await vault.get('/api/v1/credentials')).body.total;
    const res = await vault.post('/api/v1/credentials', body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect((await vault.get('/api/v1/credentials')).body.total).toBe(before);
  });

  it('refuses sorting or filtering on a secret field', async () => {
    for (const query of ['sort=password', 'sort=community,desc', 'password=x', 'secrets.community=public', 'privateKey=abc']) {
      const res = await vault.get(`/api/v1/credentials?${query}`);
      expect(res.status).toBe(400);
    }
    const sorted = await vault.get('/api/v1/credentials?sort=name,desc');
    expect(sorted.text).toContain('"data"');
    expect(sorted.status).toBe(200);
  });

  it('refuses a second credential of the same name, and a change of kind', async () => {
    const body = { name: 'dup', kind: 'SNMP_V2C', matchPatterns: ['10.0.0.1'], secrets: { community: 'c1' } };
    const first = await vault.post('/api/v1/credentials', body);
    expect((await vault.post('/api/v1/credentials', body)).status).toBe(409);
    expect((await vault.put(`/api/v1/credentials/${first.body.data.id}`, { kind: 'SSH_PASSWORD' })).status).toBe(400);
  });

  it('audits every change with who, what and from where, naming changed fields but no values', async () => {
    const created = await vault.post('/api/v1/credentials', { name: 'audited', kind: 'SNMP_V2C', matchPatterns: ['10.0.0.2'], secrets: { community: 'AUDIT-SECRET' } });
    await vault.put(`/api/v1/credentials/${created.body.data.id}`, { matchPatterns: ['10.0.0.3'], secrets: { community: 'AUDIT-SECRET-2' } });
    const events = (await p.adminSession.get(`/api/v1/audit-events?targetId=${created.body.data.id}`)).body.data;
    expect(events.map((e: { action: string }) => e.action)).toEqual(['credential.update', 'credential.create']);
    expect(events[0]).toMatchObject({
      actorKind: 'USER',
      actorName: 'discovery-admin',
      sourceIp: expect.stringMatching(/127\.0\.0\.1/),
      details: { changed: ['matchPatterns'], secretsReplaced: ['community'], matchPatterns: { from: ['10.0.0.2'], to: ['10.0.0.3'] } },
    });
    expect(JSON.stringify(events)).not.toContain('AUDIT-SECRET');
  });
});
