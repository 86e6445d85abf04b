// GET /discovery/methods serves the connector registry as declared: every method in registry
// order, with its settings as JSON Schema and its own error codes, from which the web UI builds
// its method list and target forms; GET /credential-kinds serves the kinds of credential those
// methods log in with, from which it builds its credential form.
import { z } from 'zod';
import { CREDENTIAL_KINDS, KINDS } from '../../src/features/credentials/credential-kinds.js';
import { CONNECTORS, DEFAULT_METHODS, SCAN_ERRORS } from '../../src/features/discovery/connectors/registry.js';
import { SHARED_ERRORS } from '../../src/features/discovery/shared-scan-errors.js';
import type { components } from '../../src/platform/http/api-types.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

type MethodDescription = components['schemas']['DiscoveryMethodDescription'];

describe('the discovery methods', () => {
  let service: TestService;
  let p: Principals;
  let methods: MethodDescription[];
  beforeAll(async () => {
    service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    p = await createPrincipals(service.url);
    const res = await p.discoveryAdminSession.get('/api/v1/discovery/methods');
    expect(res.status).toBe(200);
    methods = res.body.data;
  });
  afterAll(() => service.stop());

  it('lists exactly the methods of the registry, in its order, the defaults flagged', () => {
    expect(methods.map((m) => m.method)).toEqual(CONNECTORS.map((c) => c.method));
    expect(methods.filter((m) => m.enabledByDefault).map((m) => m.method)).toEqual(DEFAULT_METHODS);
  });

  it('serves each connector as declared: stage, description, port, credential kinds, where it is tried, settings as JSON Schema', () => {
    for (const [i, c] of CONNECTORS.entries()) {
      const served = methods[i] as MethodDescription;
      expect(served).toMatchObject({ method: c.method, stage: c.stage, description: c.description });
      if (c.stage === 'probe') {
        expect(served).toMatchObject({ defaultPort: null, credentialKinds: [], credentialsOptional: false, triedWhere: null, settings: null });
      } else {
        expect(served).toMatchObject({ defaultPort: 'defaultPort' in c ? c.defaultPort : null, credentialKinds: [...c.credentialKinds], credentialsOptional: 'credentialsOptional' in c && c.credentialsOptional === true, triedWhere: c.triedWhere });
        expect(served.settings).toEqual('settings' in c ? z.toJSONSchema(c.settings) : null);
      }
    }
    const vcenter = methods.find((m) => m.method === 'VCENTER');
    expect(vcenter?.settings).toMatchObject({ type: 'object', additionalProperties: false, properties: { verifyCertificate: { type: 'boolean' }, caCertificate: { type: 'string', maxLength: 20000 } } });
    expect(methods.find((m) => m.method === 'SSH')).toMatchObject({ defaultPort: 22, credentialKinds: ['SSH_KEY', 'SSH_PASSWORD'], triedWhere: 'port-answered', settings: null });
    expect(methods.find((m) => m.method === 'SNMP')).toMatchObject({ defaultPort: 161, triedWhere: 'always' });
    expect(methods.filter((m) => m.credentialsOptional).map((m) => m.method)).toEqual(['DNS', 'DHCP', 'FINGERPRINT']);
  });

  it("names each connector's own error codes with their meaning; with the shared ones, they are every code", () => {
    for (const [i, c] of CONNECTORS.entries()) {
      expect((methods[i] as MethodDescription).errorCodes).toEqual(Object.entries(c.errors).map(([code, d]) => ({ code, meaning: d.description })));
    }
    expect(methods.find((m) => m.method === 'SSH')?.errorCodes.map((e) => e.code)).toContain('HOST_KEY_CHANGED');
    expect([...Object.keys(SHARED_ERRORS), ...methods.flatMap((m) => m.errorCodes.map((e) => e.code))]).toEqual(Object.keys(SCAN_ERRORS));
  });

  it('is for those who edit targets', async () => {
    expect((await p.viewer.get('/api/v1/discovery/methods')).status).toBe(403);
    expect((await p.adminSession.get('/api/v1/discovery/methods')).status).toBe(200);
  });

  it('serves every kind of credential as declared, its settings as JSON Schema and its secret fields by name; each kind a method names among them', async () => {
    const res = await p.discoveryAdminSession.get('/api/v1/credential-kinds');
    expect(res.status).toBe(200);
    const kinds: components['schemas']['CredentialKindDescription'][] = res.body.data;
    expect(kinds.map((k) => k.kind)).toEqual([...CREDENTIAL_KINDS]);
    for (const served of kinds) {
      const declared = KINDS[served.kind];
      expect(served).toEqual({
        kind: served.kind,
        description: declared.description,
        settings: z.toJSONSchema(declared.settings),
        secretFields: Object.keys(declared.secrets).map((name) => ({ name, multiline: declared.multiline?.includes(name) ?? false })),
      });
    }
    expect(kinds.find((k) => k.kind === 'SNMP_V3')).toMatchObject({
      settings: { type: 'object', required: ['username', 'securityLevel'], additionalProperties: false, properties: { securityLevel: { enum: ['noAuthNoPriv', 'authNoPriv', 'authPriv'] } } },
      secretFields: [{ name: 'authKey', multiline: false }, { name: 'privKey', multiline: false }],
    });
    expect(kinds.find((k) => k.kind === 'SSH_KEY')?.secretFields).toEqual([{ name: 'privateKey', multiline: true }, { name: 'passphrase', multiline: false }]);
    const offered = new Set(kinds.map((k) => k.kind));
    expect(methods.flatMap((m) => m.credentialKinds).filter((kind) => !offered.has(kind))).toEqual([]);
    expect((await p.viewer.get('/api/v1/credential-kinds')).status).toBe(403);
  });
});
