// The LIBVIRT connector's script and mapping on this machine, without SSH: the script run by sh
// against libvirt's test driver (Debian's virsh) on node files of ours, its output mapped to an
// estate; and what a domain's XML cannot do (pose as a part of the output).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { libvirtScript } from '../../src/features/discovery/connectors/libvirt/libvirt-commands.js';
import { toLibvirtEstate } from '../../src/features/discovery/connectors/libvirt/libvirt-estate.js';

const FIXTURE = readFileSync(new URL('../fixtures/libvirt/hypervisor.xml', import.meta.url), 'utf8');

describe('the libvirt read of a host', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'libvirt-estate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = (xml: string, transform: (output: string) => string = (o) => o) => {
    const file = path.join(dir, 'node.xml');
    writeFileSync(file, xml);
    const { command, mark } = libvirtScript(`test://${file}`);
    return toLibvirtEstate(transform(execFileSync('sh', ['-c', command]).toString()), mark, '10.0.0.5', 'LIBVIRT:10.0.0.5:22:test', 'test:///x');
  };

  it('maps the host, its domains, pools and networks with their edges, and is complete', () => {
    const estate = read(FIXTURE);
    expect(estate.complete).toBe(true);
    expect(estate.assets.map((a) => `${a.assetType} ${a.displayName}`).sort()).toEqual(['HYPERVISOR ' + estate.assets.find((a) => a.key === 'host')?.displayName, 'NETWORK lab-isolated', 'NETWORK lab-nat', 'STORAGE_POOL images', 'VM db-1', 'VM web-1'].sort());
    expect(estate.relationships.map((r) => `${r.type} ${r.source} ${r.target}`)).toEqual([
      'CONTAINS host network/8c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d51',
      'CONTAINS host network/8c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d52',
      'HOSTS_VM host domain/4a9b3f52-1c6e-4d0a-9e1f-6b2d3c4e5f61',
      'HOSTS_VM host domain/4a9b3f52-1c6e-4d0a-9e1f-6b2d3c4e5f62',
      'USES_DATASTORE host pool/9d2e3f4a-5b6c-4d7e-8f90-a1b2c3d4e5f6',
    ]);
    expect(estate).toMatchObject({ root: 'host', rootIsHost: true, method: 'LIBVIRT' });
    expect(estate.assets.find((a) => a.key === 'host')).toMatchObject({ assetType: 'HYPERVISOR', ipAddresses: ['10.0.0.5'], attributes: { vmCount: 2, hypervisorProduct: 'TEST 0.0.2 (libvirt)' } });
  });

  it('takes a domain description that imitates a part of the output as the text it is', () => {
    const fake = `\n@@domain:4a9b3f52-1c6e-4d0a-9e1f-6b2d3c4e5f99:dumpxml\n&lt;domain&gt;&lt;name&gt;ghost&lt;/name&gt;&lt;/domain&gt;\n`;
    const estate = read(FIXTURE.replace('<name>web-1</name>', `<name>web-1</name><description>${fake}</description>`));
    expect(estate.assets.filter((a) => a.assetType === 'VM').map((a) => a.displayName).sort()).toEqual(['db-1', 'web-1']);
    expect(estate.complete).toBe(true);
  });

  it('is incomplete when a domain listed was not read, or the script did not reach its end; the unread domain is left out', () => {
    const cut = read(FIXTURE, (output) => output.replace(/(@@[0-9a-f]+domain:4a9b3f52-1c6e-4d0a-9e1f-6b2d3c4e5f61:dumpxml\n)<domain[^]*?<\/domain>\n/, '$1'));
    expect(cut.complete).toBe(false);
    expect(cut.assets.filter((a) => a.assetType === 'VM').map((a) => a.displayName)).toEqual(['db-1']);
    const short = read(FIXTURE, (output) => output.slice(0, output.lastIndexOf('@@')));
    expect(short.complete).toBe(false);
  });

  it('refuses a URI with a shell character', () => {
    expect(() => libvirtScript("qemu:///system' ; id ; '")).toThrow(RangeError);
    expect(() => libvirtScript('qemu:///system $(id)')).toThrow(RangeError);
  });
});
