// A remote scanner's result is checked record by record: a record the loader could not take is
// left out with an error record naming what was wrong; the other records and the address's own
// facts are kept.
import { emptyObservation } from '../../src/features/discovery/host-observation.js';
import { storedResult, type AddressResult } from '../../src/features/discovery/observation-bundle.js';
import { checkedResult } from '../../src/features/discovery/reported-result.js';

/** A result as it comes over the wire (JSON: the scopes read in full as a list). */
const wire = (result: AddressResult): AddressResult => JSON.parse(storedResult(result)) as AddressResult;

describe('the check of a remote scanner\'s result', () => {
  const ssh = { ...emptyObservation('10.20.0.7', 'SSH', 'PHYSICAL_HOST'), hostname: 'db-01', software: [{ packageName: 'openssl', version: '3.0.15' }], complete: new Set(['facts', 'software'] as const) };
  const snmp = { ...emptyObservation('10.20.0.7', 'SNMP', 'NETWORK_DEVICE'), interfaces: [{ name: 'eth0', ipAddresses: ['10.20.0.7/24'] }] };
  const base: AddressResult = { address: '10.20.0.7', responding: true, openPorts: [22], attempted: ['SSH', 'SNMP'], observations: [], errors: [] };

  it('keeps a result whose every record has the loader\'s shape, as it came', () => {
    const result = wire({ ...base, observations: [ssh, snmp], addressFacts: [{ method: 'DNS', addresses: [{ address: '10.20.0.8', fqdn: 'db-02.lab.test', attributes: {} }] }] });
    expect(checkedResult(result)).toBe(result);
  });

  it('leaves out the record the loader cannot take, with an error record for its address, and keeps the rest', () => {
    const broken = { ...snmp, interfaces: [{ ipAddresses: ['10.20.0.7/24'] }] };
    const estate = { method: 'VCENTER', scope: 'VCENTER:10.20.0.7:443', root: 'vc', assets: [{ key: 'vc', assetType: 'SERVER', displayName: 'vc', macAddresses: [], ipAddresses: [], attributes: { cpuCount: 'eight', nested: { a: 1 } } }], relationships: [], relationshipTypes: [], complete: true };
    const checked = checkedResult(wire({ ...base, observations: [ssh, broken as never], estates: [estate as never] }));
    expect(checked.observations.map((o) => o.method)).toEqual(['SSH']);
    expect(checked.estates).toEqual([]);
    expect(checked).toMatchObject({ address: '10.20.0.7', responding: true, openPorts: [22], attempted: ['SSH', 'SNMP'] });
    expect(checked.errors).toEqual([
      { address: '10.20.0.7', method: 'SNMP', stage: 'report', code: 'SCANNER_RECORD_INVALID', message: expect.stringMatching(/^The scanner's observation of SNMP at this address was left out: interfaces\.0\.name: /) },
      { address: '10.20.0.7', method: 'VCENTER', stage: 'report', code: 'SCANNER_RECORD_INVALID', message: expect.stringMatching(/^The scanner's estate of VCENTER at this address was left out: assets\.0\.attributes\.nested: /) },
    ]);
  });

  it('names no method a record did not name as one of the registry\'s', () => {
    const checked = checkedResult(wire({ ...base, observations: [{ method: 'ROGUE' } as never] }));
    expect(checked.observations).toEqual([]);
    expect(checked.errors.map((e) => `${e.method} ${e.code}`)).toEqual(['RUN SCANNER_RECORD_INVALID']);
  });
});
