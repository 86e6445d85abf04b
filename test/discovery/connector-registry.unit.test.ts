// The connector registry is the one list of discovery methods: api.yaml's enums, the default
// methods of a target and the credential kinds offered are derived from it.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CONNECTORS, DEFAULT_METHODS, DISCOVERY_METHODS, INVENTORY_CONNECTORS, SCAN_ERRORS, credentialKindsOf } from '../../src/features/discovery/connectors/registry.js';

const api = parse(readFileSync(new URL('../../api.yaml', import.meta.url), 'utf8'));
const schemas = api.components.schemas;

describe('the connector registry', () => {
  it('is what api.yaml names: target methods, error methods, ports and settings', () => {
    for (const name of ['NewTarget', 'TargetUpdate', 'Target']) {
      expect(schemas[name].properties.methods.items.enum).toEqual(DISCOVERY_METHODS);
    }
    expect(schemas.NewTarget.properties.methods.maxItems).toBe(CONNECTORS.length);
    const inventory = INVENTORY_CONNECTORS.map((c) => c.method);
    // FINGERPRINT has no port: nmap probes the ports of its settings.
    const withPort = INVENTORY_CONNECTORS.filter((c) => 'defaultPort' in c).map((c) => c.method);
    expect(Object.keys(schemas.TargetPortsInput.properties)).toEqual(withPort);
    expect(schemas.Target.properties.ports.required).toEqual(withPort);
    expect(Object.keys(schemas.TargetSettings.properties).sort()).toEqual(INVENTORY_CONNECTORS.filter((c) => c.settings).map((c) => c.method).sort());
    // The methods that got into a host of a run.
    expect(api.paths['/api/v1/discovery/runs/{runId}/hosts'].get.responses['200'].content['application/json'].schema.allOf[1].properties.data.items.properties.methods.items.enum).toEqual(inventory);
    const errorSchema = JSON.stringify(api).match(/"enum":\["SWEEP"[^\]]*"RUN"\]/)?.[0];
    expect(errorSchema).toBe(JSON.stringify({ enum: [...DISCOVERY_METHODS, 'RUN'] }).slice(1, -1));
  });

  it('keeps SWEEP, SSH and SNMP as they were: the defaults, their credential kinds and ports', () => {
    expect(DEFAULT_METHODS).toEqual(['SWEEP', 'SSH', 'SNMP']);
    expect(credentialKindsOf('SSH')).toEqual(['SSH_KEY', 'SSH_PASSWORD']);
    expect(credentialKindsOf('SNMP')).toEqual(['SNMP_V3', 'SNMP_V2C']);
    expect(credentialKindsOf('VCENTER')).toEqual(['HTTP_BASIC']);
    expect(credentialKindsOf('LIBVIRT')).toEqual(['SSH_KEY', 'SSH_PASSWORD']);
    expect(credentialKindsOf('CONTAINERS')).toEqual(['SSH_KEY', 'SSH_PASSWORD']);
    expect(credentialKindsOf('DNS')).toEqual(['DNS_TSIG']);
    expect(credentialKindsOf('DHCP')).toEqual(['HTTP_BASIC']);
    expect(credentialKindsOf('AWS')).toEqual(['AWS_ACCESS_KEY']);
    expect(credentialKindsOf('AZURE')).toEqual(['AZURE_CLIENT_SECRET']);
    expect(credentialKindsOf('LDAP')).toEqual(['LDAP_BIND']);
    expect(credentialKindsOf('FINGERPRINT')).toEqual([]);
    // DNS and DHCP are tried without a credential (a TSIG key, or a user of Kea's control agent, only where the server asks for one); FINGERPRINT never takes one.
    expect(INVENTORY_CONNECTORS.filter((c) => c.credentialsOptional).map((c) => c.method)).toEqual(['DNS', 'DHCP', 'FINGERPRINT']);
    expect(Object.fromEntries(INVENTORY_CONNECTORS.map((c) => [c.method, 'defaultPort' in c ? c.defaultPort : null]))).toEqual({ SSH: 22, SNMP: 161, VCENTER: 443, LIBVIRT: 22, CONTAINERS: 22, DNS: 53, DHCP: 8000, LDAP: 636, KUBERNETES: 6443, AWS: 443, AZURE: 443, FINGERPRINT: null });
  });

  it('names only error codes that exist', () => {
    for (const c of INVENTORY_CONNECTORS) for (const code of c.silentCodes) expect(Object.keys(SCAN_ERRORS)).toContain(code);
  });
});
