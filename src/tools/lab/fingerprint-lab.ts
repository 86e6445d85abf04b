// The fingerprint lab: hosts of the lab network (lab-network.ts, option fingerprintHosts) that each
// run what a credential-free scan should recognise, from Debian's packages: prn, a printer (CUPS's
// cupsd, IPP on 631, and nothing else); iot, an IoT device (the mosquitto MQTT broker on 1883, and
// nothing else); l2sw, an SNMP-only switch (snmpd alone, its community "public", a switch's
// sysDescr); srv, a Debian server (OpenSSH, nginx on 80, PostgreSQL on 5432). lab-network starts
// them as plain hosts (sshd and snmpd); startFingerprintHosts then stops what each should not run
// and starts its own daemons. What each holds (its class and its services) is FINGERPRINT_HOSTS,
// for the tests to compare with; the versions of the packages behind them, packageVersion.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A service as the lab runs it: its protocol and port, and nmap's names for the service and the product that answers. */
export interface LabService {
  protocol: 'tcp' | 'udp';
  port: number;
  name: string;
  product: string;
}

export interface FingerprintHostSpec {
  name: string;
  octet: number;
  /** The device class a fingerprint should give it. */
  deviceClass: 'PRINTER' | 'IOT_DEVICE' | 'NETWORK_DEVICE' | 'HOST';
  services: LabService[];
}

export const L2SW_SYSDESCR = 'Inventory Labs Lab Switch 2, layer 2 Ethernet switch, firmware 1.0.4';

export const FINGERPRINT_HOSTS: FingerprintHostSpec[] = [
  { name: 'prn', octet: 20, deviceClass: 'PRINTER', services: [{ protocol: 'tcp', port: 631, name: 'ipp', product: 'CUPS' }] },
  { name: 'iot', octet: 21, deviceClass: 'IOT_DEVICE', services: [{ protocol: 'tcp', port: 1883, name: 'mqtt', product: 'mosquitto' }] },
  { name: 'l2sw', octet: 22, deviceClass: 'NETWORK_DEVICE', services: [{ protocol: 'udp', port: 161, name: 'snmp', product: 'SNMPv1 server; net-snmp SNMPv3 server' }] },
  {
    name: 'srv',
    octet: 23,
    deviceClass: 'HOST',
    services: [
      { protocol: 'tcp', port: 22, name: 'ssh', product: 'OpenSSH' },
      { protocol: 'tcp', port: 80, name: 'http', product: 'nginx' },
      { protocol: 'tcp', port: 5432, name: 'postgresql', product: 'PostgreSQL DB' },
    ],
  },
];

/** A lab host as lab-network gives it: its address, and a shell inside it. */
interface LabHost {
  name: string;
  address: string;
  exec(command: string): Promise<string>;
}

export interface FingerprintLab {
  hosts: (FingerprintHostSpec & { address: string; exec(command: string): Promise<string> })[];
  /** The installed version of a Debian package (dpkg's, epoch and all). */
  packageVersion(name: string): Promise<string>;
}

const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

/** The host specs lab-network builds (plain hosts, at first with sshd and snmpd). */
export const fingerprintHostSpecs = () => FINGERPRINT_HOSTS.map(({ name, octet }) => ({ name, octet, extra: '' }));

async function stopDefaults(host: LabHost, keepSshd: boolean): Promise<void> {
  await host.exec(`${keepSshd ? '' : "pkill -x sshd; "}pkill -x snmpd; while pgrep -x snmpd > /dev/null${keepSshd ? '' : ' || pgrep -x sshd > /dev/null'}; do sleep 0.05; done`);
}

/** Each host's own daemons, started in it (their output in its folder); then waits until each listens. */
export async function startFingerprintHosts(all: Map<string, LabHost>, dir: string): Promise<FingerprintLab> {
  const hosts = FINGERPRINT_HOSTS.map((spec) => ({ ...spec, ...(all.get(spec.name) as LabHost) }));
  const byName = (name: string) => hosts.find((h) => h.name === name) as (typeof hosts)[number];
  const folder = async (name: string) => {
    const hostDir = path.join(dir, name);
    await mkdir(hostDir, { recursive: true });
    return hostDir;
  };

  const prn = byName('prn');
  const cups = path.join(await folder('prn'), 'cups');
  for (const sub of ['spool', 'cache', 'state', 'log', 'tmp']) await mkdir(path.join(cups, sub), { recursive: true });
  await writeFile(path.join(cups, 'cupsd.conf'), ['Listen 0.0.0.0:631', 'Browsing Off', 'DefaultAuthType None', '<Location />', '  Order allow,deny', '  Allow all', '</Location>', ''].join('\n'));
  await writeFile(path.join(cups, 'cups-files.conf'), [
    `ServerRoot ${cups}`, `RequestRoot ${cups}/spool`, `CacheDir ${cups}/cache`, `StateDir ${cups}/state`, `TempDir ${cups}/tmp`,
    `AccessLog ${cups}/log/access_log`, `ErrorLog ${cups}/log/error_log`, `PageLog ${cups}/log/page_log`, '',
  ].join('\n'));
  await stopDefaults(prn, false);
  await prn.exec(`/usr/sbin/cupsd -f -c ${cups}/cupsd.conf -s ${cups}/cups-files.conf > ${cups}/cupsd.out 2>&1 < /dev/null &`);

  const iot = byName('iot');
  const iotDir = await folder('iot');
  await writeFile(path.join(iotDir, 'mosquitto.conf'), ['listener 1883 0.0.0.0', 'allow_anonymous true', 'persistence false', ''].join('\n'));
  await stopDefaults(iot, false);
  await iot.exec(`/usr/sbin/mosquitto -c ${iotDir}/mosquitto.conf > ${iotDir}/mosquitto.out 2>&1 < /dev/null &`);

  // snmpd alone, without its SMUX port (TCP 199): UDP 161 is all that answers.
  const l2sw = byName('l2sw');
  const swDir = await folder('l2sw');
  await writeFile(path.join(swDir, 'snmpd-switch.conf'), ['agentAddress udp:161', `[snmp] persistentDir ${swDir}/snmp-switch`, 'rocommunity public', `sysDescr ${L2SW_SYSDESCR}`, 'sysServices 6', ''].join('\n'));
  await stopDefaults(l2sw, false);
  await l2sw.exec(`MIBS= /usr/sbin/snmpd -C -I -smux -c ${swDir}/snmpd-switch.conf -p /run/snmpd.pid -Lf ${swDir}/snmpd-switch.log`);

  const srv = byName('srv');
  const srvDir = await folder('srv');
  await writeFile(path.join(srvDir, 'nginx.conf'), [
    'daemon off;', `pid ${srvDir}/nginx.pid;`, `error_log ${srvDir}/nginx-error.log;`, 'events {}',
    `http { access_log off; client_body_temp_path ${srvDir}/nginx-tmp; proxy_temp_path ${srvDir}/nginx-tmp; fastcgi_temp_path ${srvDir}/nginx-tmp; uwsgi_temp_path ${srvDir}/nginx-tmp; scgi_temp_path ${srvDir}/nginx-tmp;`,
    '  server { listen 80; location / { return 200 "lab server\\n"; } } }', '',
  ].join('\n'));
  await mkdir(path.join(srvDir, 'nginx-tmp'), { recursive: true });
  const pg = path.join(srvDir, 'pg');
  await mkdir(pg, { recursive: true });
  await run('chown', ['postgres', pg]);
  await run('su', ['postgres', '-s', '/bin/sh', '-c', `${POSTGRES_BIN}/initdb -D ${pg}/data -A trust -U postgres > ${pg}/initdb.out 2>&1`]);
  await stopDefaults(srv, true);
  await srv.exec(`/usr/sbin/nginx -c ${srvDir}/nginx.conf > ${srvDir}/nginx.out 2>&1 < /dev/null &`);
  await srv.exec(`su postgres -s /bin/sh -c '${POSTGRES_BIN}/postgres -D ${pg}/data -c listen_addresses=${srv.address} -c unix_socket_directories=${pg} > ${pg}/postgres.out 2>&1 < /dev/null &'`);

  // Each host listens on its services' ports, and on no others (sshd and snmpd gone where they should be).
  const end = Date.now() + 60_000;
  for (const host of hosts) {
    const wanted = host.services.map((s) => `${s.protocol}:${s.port}`).sort();
    for (;;) {
      const listening = (await host.exec('ss -Hlntu')).split('\n').flatMap((line) => {
        const [netid, , , , local] = line.trim().split(/\s+/);
        const port = local?.split(':').pop();
        return netid && port && !local?.startsWith('127.') && !local?.startsWith('[::1]') ? [`${netid}:${port}`] : [];
      });
      if (JSON.stringify([...new Set(listening)].sort()) === JSON.stringify(wanted)) break;
      if (Date.now() > end) throw new Error(`${host.name} listens on ${[...new Set(listening)].join(', ') || 'nothing'}, not on ${wanted.join(', ')} alone`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return {
    hosts,
    packageVersion: async (name) => (await run('dpkg-query', ['-W', '-f', '${Version}', name])).stdout.trim(),
  };
}
