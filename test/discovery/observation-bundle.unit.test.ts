// What a run hands the inventory writer (translateRun, pure: no store, no service): the bundle,
// the facts of each method, the links of the connections a host showed, and the scopes read
// completely, which alone retire anything.
import { emptyObservation, type EstateObservation, type HostObservation } from '../../src/features/discovery/host-observation.js';
import { keysOfAddress, translateRun, type AddressResult, type TranslationContext } from '../../src/features/discovery/observation-bundle.js';

const observedAt = '2026-11-20T14:03:11.512Z';
const context = (fields: Partial<TranslationContext> = {}): TranslationContext => ({ observedAt, sshPort: 22, ownAddresses: new Set(['10.0.0.1']), known: new Map(), ...fields });

function sshHost(address: string, fields: Partial<HostObservation> = {}): HostObservation {
  return {
    ...emptyObservation(address, 'SSH', 'VM'),
    hostname: 'db1',
    macAddresses: ['52:54:00:aa:bb:01'],
    ipAddresses: [address],
    attributes: { osName: 'Debian' },
    software: [{ packageName: 'bash', version: '5.2' }],
    processes: [{ pid: 842, ppid: 1, processName: 'sshd', sourceConnector: 'SSH', application: 'openssh-server' }],
    services: [{ serviceName: 'postgresql.service', state: 'running', listenPorts: [{ protocol: 'tcp', port: 5432 }], sourceConnector: 'SSH' }],
    connections: [
      { localAddress: address, localPort: 5432, remoteAddress: '10.0.0.50', remotePort: 40112 },
      { localAddress: address, localPort: 41000, remoteAddress: '10.0.0.60', remotePort: 443 },
      { localAddress: address, localPort: 22, remoteAddress: '10.0.0.1', remotePort: 50000 },
    ],
    applications: [{ id: 'openssh-server', name: 'OpenSSH server', listenPorts: [22] }],
    complete: new Set(['facts', 'software', 'processes', 'services', 'interfaces', 'connections']),
    ...fields,
  };
}

const result = (address: string, fields: Partial<AddressResult> = {}): AddressResult => ({ address, responding: true, openPorts: [], attempted: [], observations: [], errors: [], ...fields });

function vcenterEstate(complete: boolean): EstateObservation {
  return {
    method: 'VCENTER',
    scope: 'VCENTER:10.0.0.5:443',
    root: 'vc',
    assets: [
      { key: 'vc', assetType: 'VIRTUALIZATION_MANAGER', displayName: 'vcenter', macAddresses: [], ipAddresses: ['10.0.0.5'], attributes: {} },
      { key: 'esx1', assetType: 'HYPERVISOR', displayName: 'esx1', macAddresses: [], ipAddresses: [], attributes: { vmCount: 1 } },
    ],
    relationships: [{ type: 'MANAGED_BY', source: 'esx1', target: 'vc' }],
    relationshipTypes: ['MANAGED_BY', 'HOSTS_VM'],
    complete,
  };
}

describe('translateRun', () => {
  it('when SSH read a host in full, the bundle holds the host, its applications and sub-records, and every scope SSH retires is named', () => {
    const { bundle, factSets, reads } = translateRun([result('10.0.0.10', { openPorts: [22, 5432], attempted: ['SSH'], observations: [sshHost('10.0.0.10')] })], context());
    expect(bundle.assets.map((a) => [a.key, a.assetType])).toEqual([['10.0.0.10', 'VM'], ['10.0.0.10#openssh-server', 'SOFTWARE']]);
    expect(bundle.assets[0]?.customAttributes).toEqual({ osName: 'Debian', openPorts: '22,5432' });
    expect(bundle.relationships).toEqual([{ type: 'RUNS_ON', source: '10.0.0.10#openssh-server', target: '10.0.0.10' }]);
    expect(bundle.processes).toEqual([{ pid: 842, ppid: 1, processName: 'sshd', sourceConnector: 'SSH', asset: '10.0.0.10', software: '10.0.0.10#openssh-server' }]);
    expect(bundle.software).toEqual([{ packageName: 'bash', version: '5.2', asset: '10.0.0.10' }]);
    expect(factSets.get('10.0.0.10')?.map((s) => s.source)).toEqual(['ssh', 'sweep']);
    expect(factSets.get('10.0.0.10#openssh-server')?.map((s) => s.source)).toEqual(['ssh']);
    expect(reads).toEqual({ software: ['10.0.0.10'], services: [{ assets: ['10.0.0.10'], connector: 'SSH' }], communications: ['10.0.0.10'], estates: [] });
  });

  it('when a host listens on the port of a connection, the remote end is the client; the connector\'s own SSH session is left out', () => {
    const { bundle } = translateRun([result('10.0.0.10', { attempted: ['SSH'], observations: [sshHost('10.0.0.10')] })], context());
    expect(bundle.links).toEqual([
      { type: 'COMMUNICATES_WITH', source: { ipAddress: '10.0.0.50' }, target: { key: '10.0.0.10' } },
      { type: 'COMMUNICATES_WITH', source: { key: '10.0.0.10' }, target: { ipAddress: '10.0.0.60' } },
    ]);
  });

  it('when SSH did not read the software, processes or connections in full, none of them is retired and the processes are not replaced', () => {
    const partial = sshHost('10.0.0.10', { complete: new Set(['facts', 'interfaces']) });
    const { bundle, reads } = translateRun([result('10.0.0.10', { attempted: ['SSH'], observations: [partial] })], context());
    expect(bundle.processes).toEqual([]);
    expect(bundle.links).toEqual([]);
    expect(reads).toEqual({ software: [], services: [{ assets: [], connector: 'SSH' }], communications: [], estates: [] });
  });

  it('when an address only answered the sweep, an unknown one becomes an UNKNOWN_ENDPOINT and a known one is seen again', () => {
    const { bundle, factSets } = translateRun(
      [result('10.0.0.20', { openPorts: [80], hostname: 'printer' }), result('10.0.0.21', { openPorts: [443] }), result('10.0.0.22', { responding: false })],
      context({ known: new Map([['10.0.0.21', 'asset-21'], ['10.0.0.22', 'asset-22']]) }),
    );
    expect(bundle.assets).toEqual([{ key: '10.0.0.20', assetType: 'UNKNOWN_ENDPOINT', displayName: 'printer', hostname: 'printer', ipAddresses: ['10.0.0.20'], customAttributes: { openPorts: '80' } }]);
    expect(bundle.seen).toEqual(['asset-21']);
    expect(factSets.get('10.0.0.20')).toEqual([{ source: 'sweep', values: { assetType: 'UNKNOWN_ENDPOINT', displayName: 'printer', hostname: 'printer', ipAddresses: ['10.0.0.20'], 'custom.openPorts': '80' } }]);
    expect(factSets.get('10.0.0.21')).toEqual([{ source: 'sweep', values: { 'custom.openPorts': '443' } }]);
  });

  it('when a vCenter read its estate in full, its assets are the scope\'s members and what it no longer shows is retired; a partial read retires nothing', () => {
    const complete = translateRun([result('10.0.0.5', { attempted: ['VCENTER'], estates: [vcenterEstate(true)] })], context());
    expect(complete.bundle.assets.map((a) => a.key)).toEqual(['VCENTER:10.0.0.5:443|vc', 'VCENTER:10.0.0.5:443|esx1']);
    expect(complete.bundle.relationships).toEqual([{ type: 'MANAGED_BY', source: 'VCENTER:10.0.0.5:443|esx1', target: 'VCENTER:10.0.0.5:443|vc' }]);
    expect(complete.factSets.get('VCENTER:10.0.0.5:443|esx1')).toEqual([{ source: 'vcenter', values: { assetType: 'HYPERVISOR', displayName: 'esx1', macAddresses: [], ipAddresses: [], 'custom.vmCount': 1 } }]);
    expect(complete.reads.estates).toEqual([{ scope: 'VCENTER:10.0.0.5:443', members: ['VCENTER:10.0.0.5:443|vc', 'VCENTER:10.0.0.5:443|esx1'], retire: { relationshipTypes: ['MANAGED_BY', 'HOSTS_VM'] } }]);
    const partial = translateRun([result('10.0.0.5', { attempted: ['VCENTER'], estates: [vcenterEstate(false)] })], context());
    expect(partial.reads.estates).toEqual([{ scope: 'VCENTER:10.0.0.5:443', members: ['VCENTER:10.0.0.5:443|vc', 'VCENTER:10.0.0.5:443|esx1'] }]);
    expect(keysOfAddress(result('10.0.0.5', { estates: [vcenterEstate(true)] }))).toEqual(['10.0.0.5', 'VCENTER:10.0.0.5:443|vc']);
  });

  describe("a fingerprint's facts and services at an address (AddressFacts with a type and services)", () => {
    const fingerprint = (address: string, complete = true): AddressResult['addressFacts'] => [{
      method: 'FINGERPRINT',
      addresses: [{
        address, assetType: 'PRINTER', macAddresses: ['02:00:00:00:00:16'], attributes: { deviceClass: 'PRINTER', deviceClassConfidence: 0.7 }, evidence: { fingerprintEvidence: { deviceClass: 'PRINTER' } },
        services: { rows: [{ serviceName: 'ipp:631', product: 'CUPS', version: '2.4', state: 'open', listenPorts: [{ protocol: 'tcp', port: 631 }], sourceConnector: 'FINGERPRINT' }], complete },
      }],
    }];

    it('are facts of source fingerprint, the type among them, on an entry that matches any category (never identity by the class), with its services, whose scope it retires', () => {
      const { bundle, factSets, reads } = translateRun([result('10.0.0.16', { attempted: ['FINGERPRINT'], addressFacts: fingerprint('10.0.0.16') })], context({ known: new Map([['10.0.0.16', 'asset-1']]) }));
      expect(bundle.assets).toEqual([expect.objectContaining({ key: '10.0.0.16', assetType: 'UNKNOWN_ENDPOINT', macAddresses: ['02:00:00:00:00:16'] })]);
      expect(factSets.get('10.0.0.16')).toEqual([{ source: 'fingerprint', values: expect.objectContaining({ assetType: 'PRINTER', 'custom.deviceClass': 'PRINTER', 'custom.deviceClassConfidence': 0.7, fingerprintEvidence: { deviceClass: 'PRINTER' } }) }]);
      expect(bundle.services).toEqual([expect.objectContaining({ asset: '10.0.0.16', serviceName: 'ipp:631', product: 'CUPS', sourceConnector: 'FINGERPRINT' })]);
      expect(reads.services).toContainEqual({ assets: ['10.0.0.16'], connector: 'FINGERPRINT' });
    });

    it('load the services read, but retire none of its own, where the read was truncated', () => {
      const { bundle, reads } = translateRun([result('10.0.0.16', { attempted: ['FINGERPRINT'], addressFacts: fingerprint('10.0.0.16', false) })], context());
      expect(bundle.services).toHaveLength(1);
      expect(reads.services?.find((s) => s.connector === 'FINGERPRINT')).toBeUndefined();
    });

    it("give way to SSH's services where SSH read the host's in full: none of the fingerprint's is loaded, and its rows there are retired", () => {
      const { bundle, factSets, reads } = translateRun([result('10.0.0.10', { attempted: ['SSH', 'FINGERPRINT'], observations: [sshHost('10.0.0.10')], addressFacts: fingerprint('10.0.0.10') })], context());
      expect(bundle.services?.map((s) => s.serviceName)).toEqual(['postgresql.service']);
      expect(bundle.assets.find((a) => a.key === '10.0.0.10')?.assetType).toBe('VM');
      expect(factSets.get('10.0.0.10')?.map((s) => s.source)).toEqual(['ssh', 'fingerprint']);
      expect(reads.services).toEqual([{ assets: ['10.0.0.10'], connector: 'SSH' }, { assets: ['10.0.0.10'], connector: 'FINGERPRINT' }]);
    });
  });
});
