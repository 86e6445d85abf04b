// The FINGERPRINT connector's reading of nmap's XML and its own classification rules, on reports
// that Debian's nmap 7.93 made of the fingerprint lab's hosts (test/fixtures/fingerprint/, captured
// with the connector's own arguments: prn runs CUPS, iot mosquitto, l2sw snmpd alone with a
// switch's sysDescr, srv OpenSSH, nginx and PostgreSQL, h1 OpenSSH and snmpd), and on reports made
// hostile (too many ports, not XML); and the child process's bounds, with programs that stand in for
// an nmap gone wrong. The lab test (fingerprint-discovery) runs nmap itself.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { classify, servicesOf } from '../../src/features/discovery/connectors/fingerprint/device-class.js';
import { MAX_PORTS, parseNmapReport, type NmapHost } from '../../src/features/discovery/connectors/fingerprint/nmap-report.js';
import { MAX_REPORT_OCTETS, nmapArguments, runNmap } from '../../src/features/discovery/connectors/fingerprint/nmap-run.js';

const report = (name: string) => parseNmapReport(readFileSync(new URL(`../fixtures/fingerprint/${name}.xml`, import.meta.url), 'utf8')) as NmapHost;
const TABLE: Record<string, string> = { 'tcp/1883': 'mqtt', 'udp/161': 'snmp' };
const tableName = (protocol: string, port: number) => TABLE[`${protocol}/${port}`];
const summary = (host: NmapHost) => {
  const c = classify(host);
  return { deviceClass: c.deviceClass, confidence: c.confidence, rules: c.evidence.map((e) => e.rule), osFamily: c.osFamily, osName: c.osName };
};

describe("nmap's report of a lab host", () => {
  it('is read with its MAC, its open ports and what -sV named there, and its OS classes', () => {
    const srv = report('srv');
    expect(srv).toMatchObject({ state: 'up', timedOut: false, truncated: false, mac: expect.stringMatching(/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/) });
    expect(srv.ports.map((p) => [p.protocol, p.port, p.name, p.product])).toEqual([
      ['tcp', 22, 'ssh', 'OpenSSH'], ['tcp', 80, 'http', 'nginx'], ['tcp', 5432, 'postgresql', 'PostgreSQL DB'],
    ]);
    expect(srv.ports[0]).toMatchObject({ version: expect.stringMatching(/ Debian /), ostype: 'Linux' });
    expect(srv.osClasses[0]).toMatchObject({ type: 'general purpose', osfamily: 'Linux', accuracy: expect.any(Number) });
  });

  it("keeps the SNMP agent's sysDescr from the snmp-sysdescr script, its character references decoded", () => {
    const [snmp] = report('l2sw').ports;
    expect(snmp).toMatchObject({ protocol: 'udp', port: 161, name: 'snmp' });
    expect(snmp?.scripts['snmp-sysdescr']).toMatch(/^Inventory Labs Lab Switch 2, layer 2 Ethernet switch, firmware 1\.0\.4 +System uptime: /);
  });

  it('is undefined when it is not nmap\'s XML, and an empty host when nmap reported none', () => {
    expect(parseNmapReport('not xml <<<')).toBeUndefined();
    expect(parseNmapReport('<html><body>hello</body></html>')).toBeUndefined();
    expect(parseNmapReport('<nmaprun scanner="nmap"><runstats/></nmaprun>')).toEqual({ state: 'missing', timedOut: false, ports: [], osClasses: [], truncated: false });
  });

  it('keeps at most MAX_PORTS open ports, says it was truncated, and ignores closed ones and ports out of range', () => {
    const port = (n: number, state = 'open') => `<port protocol="tcp" portid="${n}"><state state="${state}"/><service name="http"/></port>`;
    const ports = [...Array.from({ length: MAX_PORTS + 5 }, (_, i) => port(i + 1)), port(70000), port(9000, 'closed')];
    const host = parseNmapReport(`<nmaprun><host timedout="true"><status state="up"/><ports>${ports.join('')}</ports></host></nmaprun>`) as NmapHost;
    expect(host).toMatchObject({ truncated: true, timedOut: true });
    expect(host.ports).toHaveLength(MAX_PORTS);
    expect(host.ports.some((p) => p.port === 9000)).toBe(false);
  });

  it('is cleaned of control characters and capped, as every device text', () => {
    const host = parseNmapReport(`<nmaprun><host><status state="up"/><ports><port protocol="tcp" portid="80"><state state="open"/><service name="http" product="evil&#x1b;[31m${'x'.repeat(500)}"/></port></ports></host></nmaprun>`) as NmapHost;
    expect(host.ports[0]?.product).toMatch(/^evil\[31mx+$/);
    expect(host.ports[0]?.product?.length).toBe(128);
  });
});

describe('the device class, its confidence and evidence', () => {
  it('calls the CUPS host a PRINTER (IPP), the mosquitto host an IOT_DEVICE (MQTT), the SNMP-only one a NETWORK_DEVICE, and the servers HOSTs with their OS', () => {
    expect(summary(report('prn'))).toEqual({ deviceClass: 'PRINTER', confidence: 0.7, rules: ['IPP service'], osFamily: 'Linux', osName: undefined });
    expect(summary(report('iot'))).toEqual({ deviceClass: 'IOT_DEVICE', confidence: 0.7, rules: ['MQTT service'], osFamily: 'Linux', osName: undefined });
    expect(summary(report('l2sw'))).toEqual({ deviceClass: 'NETWORK_DEVICE', confidence: 0.9, rules: ['SNMP sysDescr of a network device', 'SNMP is all that answers'], osFamily: undefined, osName: undefined });
    expect(summary(report('srv'))).toMatchObject({ deviceClass: 'HOST', rules: ['SSH banner names an OS', "OS detection's device type general purpose", 'server service'], osFamily: 'Linux', osName: 'Debian' });
    expect(summary(report('h1'))).toMatchObject({ deviceClass: 'HOST', rules: ['SSH banner names an OS', "OS detection's device type general purpose"], osFamily: 'Linux', osName: 'Debian' });
  });

  it('records what fired each rule, and the evidence for the classes that lost', () => {
    const prn = classify(report('prn'));
    expect(prn.evidence).toEqual([{ rule: 'IPP service', deviceClass: 'PRINTER', weight: 0.7, detail: 'tcp/631 ipp (CUPS 2.4)' }]);
    expect(prn.against).toEqual([expect.objectContaining({ rule: "OS detection's device type general purpose", deviceClass: 'HOST', detail: expect.stringMatching(/^Linux Linux .*%\)$/) })]);
    expect(classify(report('srv')).osEvidence).toMatch(/^tcp\/22 ssh \(OpenSSH .* Debian /);
  });

  it('keeps a Linux server that shares a printer over IPP a HOST: its SSH banner and OS outweigh one printer port', () => {
    const server = report('srv');
    const printerPort = report('prn').ports[0] as NmapHost['ports'][number];
    const c = classify({ ...server, ports: [...server.ports, printerPort] });
    expect(c.deviceClass).toBe('HOST');
    expect(c.against.map((e) => e.rule)).toEqual(['IPP service']);
  });

  it('names no class where no rule fires (an unknown service, no OS match)', () => {
    const c = classify({ state: 'up', timedOut: false, truncated: false, osClasses: [], ports: [{ protocol: 'tcp', port: 4444, name: 'krb524', scripts: {} }] });
    expect(c).toEqual({ evidence: [], against: [] });
  });
});

describe('the DISCOVERED_SERVICE rows of a fingerprint', () => {
  it('name each open port by its service and port, with the product and version that answer there', () => {
    expect(servicesOf(report('srv'), tableName).map((s) => [s.serviceName, s.product, s.version === undefined ? '-' : 'v', s.sourceConnector, s.listenPorts])).toEqual([
      ['ssh:22', 'OpenSSH', 'v', 'FINGERPRINT', [{ protocol: 'tcp', port: 22 }]],
      ['http:80', 'nginx', 'v', 'FINGERPRINT', [{ protocol: 'tcp', port: 80 }]],
      ['postgresql:5432', 'PostgreSQL DB', 'v', 'FINGERPRINT', [{ protocol: 'tcp', port: 5432 }]],
    ]);
    expect(servicesOf(report('l2sw'), tableName).map((s) => s.serviceName)).toEqual(['snmp:161/udp']);
  });

  it("take the port's usual name where nmap's is no name (mqtt-subscribe puts the broker's version there), and read the product and version from it", () => {
    expect(report('iot').ports[0]?.name).toMatch(/^mosquitto version /);
    expect(servicesOf(report('iot'), tableName)).toEqual([expect.objectContaining({ serviceName: 'mqtt:1883', product: 'mosquitto', version: expect.stringMatching(/^\d+\.\d+/), state: 'open' })]);
  });
});

describe("nmap's arguments", () => {
  it('end with the address after --, so that it is never read as an option, and bound nmap by its own host time-out', () => {
    const args = nmapArguments({ address: '10.0.0.5', tcpPorts: [22, 631], udpPorts: [161], intensity: 7, osDetection: true, timeoutMs: 120_000 });
    expect(args.slice(-2)).toEqual(['--', '10.0.0.5']);
    expect(args).toEqual(expect.arrayContaining(['-oX', '-', '-sV', '--version-intensity', '7', '--host-timeout', '90s']));
    expect(args[args.indexOf('-p') + 1]).toBe(process.getuid?.() === 0 ? 'T:22,631,U:161' : 'T:22,631');
  });
});

describe('the nmap child process', () => {
  const options = { address: '10.0.0.5', tcpPorts: [22], udpPorts: [], intensity: 7, osDetection: false, timeoutMs: 60_000 };
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fingerprint-nmap-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const program = (name: string, script: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${script}\n`);
    chmodSync(file, 0o755);
    return file;
  };

  it('is NOT_INSTALLED where the program is not there', async () => {
    expect(await runNmap({ ...options, program: path.join(os.tmpdir(), 'no-such-dir', 'nmap') })).toMatchObject({ failure: 'NOT_INSTALLED' });
  });

  it('is stopped once its report passes MAX_REPORT_OCTETS', async () => {
    const run = await runNmap({ ...options, program: program('chatty-nmap', 'exec yes "<port/>"') });
    expect(run).toMatchObject({ failure: 'TOO_LARGE', message: expect.stringContaining(String(MAX_REPORT_OCTETS)) });
  });

  it('is killed at its time-out and on a cancel, and says which', async () => {
    const pidFile = path.join(dir, 'pid');
    const slow = program('slow-nmap', `echo $$ > ${pidFile}; exec sleep 60`);
    expect(await runNmap({ ...options, program: slow, timeoutMs: 500 })).toMatchObject({ failure: 'TIMEOUT' });
    const cancel = new AbortController();
    const running = runNmap({ ...options, program: slow, signal: cancel.signal });
    setTimeout(() => cancel.abort(), 300);
    expect(await running).toMatchObject({ failure: 'CANCELLED' });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    // The child is gone (SIGKILL): signalling it fails.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('is FAILED with its last words when it exits with an error', async () => {
    const failing = program('failing-nmap', 'echo "QUITTING! something broke" >&2; exit 1');
    expect(await runNmap({ ...options, program: failing })).toMatchObject({ failure: 'FAILED', message: expect.stringContaining('QUITTING! something broke') });
  });
});
