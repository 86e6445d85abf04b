// The pure parsers of the SSH connector over command outputs in test/fixtures/ssh (README there:
// which were captured on a real host, which were written by hand), and over hostile output.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LinuxCommand } from '../../src/features/discovery/connectors/ssh/linux-commands.js';
import {
  buildServices, lldpUnreadable, parseEstablished, parseFacts, parseInterfaces, parseListening, parseLldp, parsePackages, parseProcesses, parseSystemd, sections,
} from '../../src/features/discovery/connectors/ssh/linux-parsers.js';
import { PROJECT_ROOT } from '../../src/platform/project-root.js';

const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'ssh');
type Host = 'debian-container' | 'rhel-vm' | 'alpine-vm' | 'physical-dell' | 'physical-supermicro';

/** What a command printed on a fixture host (`variant` names a second capture of the same command). */
const output = (host: Host, command: LinuxCommand, variant = '') => readFileSync(path.join(FIXTURES, host, `${command}${variant}.txt`), 'utf8');
const hostile = JSON.parse(readFileSync(path.join(FIXTURES, 'hostile.json'), 'utf8')) as Record<'facts' | 'packages' | 'processes' | 'processNames' | 'listening' | 'systemd', string>;

const processesOf = (host: Host) => parseProcesses(output(host, 'processes'), output(host, 'processNames'));
const PS_ARGS = 'ps -eo pid=,ppid=,user:32=,stat=,rss=,pcpu=,unit:100=,args=';

describe('sections', () => {
  it('splits output at "@@name" lines, trims each body, and ignores text before the first header', () => {
    expect([...sections('banner\n@@one\n  a\nb  \n\n@@two-2\n@@three\nc\n')]).toEqual([['one', 'a\nb'], ['two-2', ''], ['three', 'c']]);
  });

  it('takes a line for a header only when it is "@@" and a plain name', () => {
    expect([...sections('@@ps\n@@ not a header\n@@Upper\n@@x;y\n')]).toEqual([['ps', '@@ not a header\n@@Upper\n@@x;y']]);
  });
});

describe('host facts', () => {
  it('of a Debian container on a KVM guest (captured): CONTAINER, the container named as virtualization, no hardware identity', () => {
    expect(parseFacts(output('debian-container', 'facts'))).toEqual({
      hostname: 'vm',
      assetType: 'CONTAINER',
      attributes: {
        osName: 'Debian GNU/Linux', osVersion: '12 (bookworm)', osId: 'debian', kernel: '6.18.44-fc-v669', architecture: 'x86_64',
        cpuCount: 2, memoryMb: 24106, virtualization: 'docker',
      },
    });
  });

  it('of a RHEL KVM guest: VM from systemd-detect-virt, a lower-cased FQDN, the DMI identity with its UUID serial', () => {
    expect(parseFacts(output('rhel-vm', 'facts'))).toEqual({
      hostname: 'db1',
      fqdn: 'db1.corp.example.com',
      assetType: 'VM',
      vendor: 'Red Hat',
      model: 'KVM',
      serialNumber: '8e2f6a1c-3b7d-4c9e-a0f5-6d1b2c3e4f50',
      attributes: {
        osName: 'Red Hat Enterprise Linux', osVersion: '9.4 (Plow)', osId: 'rhel', kernel: '5.14.0-427.13.1.el9_4.x86_64', architecture: 'x86_64',
        cpuCount: 4, memoryMb: 7685, virtualization: 'kvm',
      },
    });
  });

  it('of an Alpine VMware guest without systemd-detect-virt: VM from the DMI product name; a short "hostname -f" is no FQDN', () => {
    expect(parseFacts(output('alpine-vm', 'facts'))).toEqual({
      hostname: 'edge-proxy',
      assetType: 'VM',
      vendor: 'VMware, Inc.',
      model: 'VMware Virtual Platform',
      serialNumber: 'VMware-42 1c 6b 0e 3f 8a 9d 2b-5e 7f 21 c4 a9 0b 3d 11',
      attributes: {
        osName: 'Alpine Linux', osVersion: '3.21.3', osId: 'alpine', kernel: '6.12.13-0-lts', architecture: 'x86_64',
        cpuCount: 2, memoryMb: 1967, virtualization: 'VMware Virtual Platform',
      },
    });
  });

  it('of a Dell server: PHYSICAL_HOST with its service tag as serial number and no virtualization attribute', () => {
    expect(parseFacts(output('physical-dell', 'facts'))).toEqual({
      hostname: 'hv-r740-03',
      fqdn: 'hv-r740-03.dc1.example.net',
      assetType: 'PHYSICAL_HOST',
      vendor: 'Dell Inc.',
      model: 'PowerEdge R740',
      serialNumber: '7XK2HM2',
      attributes: {
        osName: 'Ubuntu', osVersion: '22.04.4 LTS (Jammy Jellyfish)', osId: 'ubuntu', kernel: '5.15.0-105-generic', architecture: 'x86_64',
        cpuCount: 48, memoryMb: 386658,
      },
    });
  });

  it('of a server whose firmware says "To Be Filled By O.E.M.": PHYSICAL_HOST without a serial number', () => {
    expect(parseFacts(output('physical-supermicro', 'facts'))).toEqual({
      hostname: 'build-07',
      assetType: 'PHYSICAL_HOST',
      vendor: 'Supermicro',
      model: 'SYS-5019C-M',
      attributes: {
        osName: 'Debian GNU/Linux', osVersion: '12 (bookworm)', osId: 'debian', kernel: '6.1.0-21-amd64', architecture: 'x86_64',
        cpuCount: 8, memoryMb: 32007,
      },
    });
  });

  it.each([['0'], ['None'], ['Not Specified'], ['Default string'], ['System Serial Number'], ['0123456789'], ['000000000000']])(
    'ignore the placeholder serial %p',
    (serial) => {
      const facts = parseFacts(output('physical-dell', 'facts').replace('product_serial=7XK2HM2', `product_serial=${serial}`));
      expect(facts.serialNumber).toBeUndefined();
      expect(facts.assetType).toBe('PHYSICAL_HOST');
    },
  );

  it('classify by the container marker files where systemd-detect-virt is missing, and by the CPU hypervisor flag alone', () => {
    const bare = '@@hostname\nh\n@@dmi\nsys_vendor=\nproduct_name=Standard PC (Q35 + ICH9, 2009)\nproduct_serial=\n@@virt\n';
    expect(parseFacts(`${bare}@@container-markers\npodman\n@@hypervisor-flag\n2\n`)).toMatchObject({ assetType: 'CONTAINER', attributes: { virtualization: 'podman' } });
    expect(parseFacts(`${bare}@@container-markers\n@@hypervisor-flag\n2\n`)).toMatchObject({ assetType: 'VM', attributes: { virtualization: 'hypervisor' } });
    expect(parseFacts(`${bare}@@container-markers\n@@hypervisor-flag\n0\n`).assetType).toBe('PHYSICAL_HOST');
  });

  it('of empty output: a physical host with nothing known, not an error', () => {
    expect(parseFacts('')).toEqual({ assetType: 'PHYSICAL_HOST', attributes: {} });
  });
});

describe('installed packages', () => {
  it('from dpkg-query (captured): name with its architecture qualifier, version with epoch, maintainer without e-mail', () => {
    const packages = parsePackages(output('debian-container', 'packages'));
    expect(packages).toHaveLength(26);
    expect(packages?.slice(0, 2)).toEqual([
      { packageName: 'adduser', version: '3.134', publisher: 'Debian Adduser Developers', packageManager: 'dpkg' },
      { packageName: 'apt', version: '2.6.1', publisher: 'APT Development Team', packageManager: 'dpkg' },
    ]);
    expect(packages?.filter((p) => /^(libc6|openssh-server|redis-server)\b/.test(p.packageName))).toEqual([
      { packageName: 'libc6:amd64', version: '2.36-9+deb12u14', publisher: 'GNU Libc Maintainers', packageManager: 'dpkg' },
      { packageName: 'openssh-server', version: '1:9.2p1-2+deb12u10', publisher: 'Debian OpenSSH Maintainers', packageManager: 'dpkg' },
      { packageName: 'redis-server', version: '5:7.0.15-1~deb12u10', publisher: 'Chris Lamb', packageManager: 'dpkg' },
    ]);
  });

  it('from dpkg-query keep installed ("ii") packages only: removed ones with config left ("rc") and half-installed are not', () => {
    const text = '@@dpkg\nii \tcurl\t7.88.1-10+deb12u5\tAlessandro Ghedini <ghedo@debian.org>\nrc \told-kernel\t6.1.0-9\tDebian Kernel Team <x@y>\niHR\tbroken\t1\tz\nii \tno-maintainer\t1.0\t\n';
    expect(parsePackages(text)).toEqual([
      { packageName: 'curl', version: '7.88.1-10+deb12u5', publisher: 'Alessandro Ghedini', packageManager: 'dpkg' },
      { packageName: 'no-maintainer', version: '1.0', publisher: null, packageManager: 'dpkg' },
    ]);
  });

  it('from rpm on RHEL: version-release, vendor (none when "(none)"), install date, and no gpg-pubkey entries', () => {
    expect(parsePackages(output('rhel-vm', 'packages'))).toEqual([
      { packageName: 'bash', version: '5.1.8-9.el9', publisher: 'Red Hat, Inc.', installDate: '2024-04-25', packageManager: 'rpm' },
      { packageName: 'chrony', version: '4.5-1.el9', publisher: 'Red Hat, Inc.', installDate: '2024-04-25', packageManager: 'rpm' },
      { packageName: 'openssh-server', version: '8.7p1-38.el9', publisher: 'Red Hat, Inc.', installDate: '2024-04-25', packageManager: 'rpm' },
      { packageName: 'nginx', version: '1.20.1-14.el9_2.1', publisher: 'Red Hat, Inc.', installDate: '2024-05-20', packageManager: 'rpm' },
      { packageName: 'postgresql', version: '13.14-1.el9_3', publisher: 'Red Hat, Inc.', installDate: '2024-05-20', packageManager: 'rpm' },
      { packageName: 'postgresql-server', version: '13.14-1.el9_3', publisher: 'Red Hat, Inc.', installDate: '2024-05-20', packageManager: 'rpm' },
      { packageName: 'redis', version: '6.2.7-1.el9', publisher: 'Red Hat, Inc.', installDate: '2024-05-20', packageManager: 'rpm' },
      { packageName: 'custom-agent', version: '2.3.1-1', publisher: null, installDate: '2024-05-21', packageManager: 'rpm' },
    ]);
  });

  it('from apk on Alpine: the version starts at the last "-" followed by a digit, so names may hold "-<digit>"', () => {
    expect(parsePackages(output('alpine-vm', 'packages'))?.map((p) => [p.packageName, p.version])).toEqual([
      ['alpine-baselayout', '3.6.8-r1'],
      ['busybox', '1.37.0-r12'],
      ['ca-certificates-bundle', '20241121-r1'],
      ['font-adobe-100dpi', '1.0.4-r2'],
      ['lua5.4', '5.4.7-r0'],
      ['musl', '1.2.5-r9'],
      ['nginx', '1.26.3-r0'],
      ['openssh', '9.9_p2-r0'],
      ['openssh-server', '9.9_p2-r0'],
      ['procps-ng', '4.0.4-r2'],
      ['s6', '2.13.1.0-r0'],
    ]);
    expect(parsePackages(output('alpine-vm', 'packages'))?.[0]).toEqual({ packageName: 'alpine-baselayout', version: '3.6.8-r1', publisher: null, packageManager: 'apk' });
  });

  it('are undefined when no package manager answered, and an empty list when one answered with nothing', () => {
    expect(parsePackages('')).toBeUndefined();
    expect(parsePackages('@@apk\n')).toEqual([]);
  });
});

describe('processes', () => {
  it('of the captured container: names from comm, the connector\'s ps and its sshd session left out, the sshd listener kept', () => {
    const processes = processesOf('debian-container');
    expect(processes.map((p) => p.pid)).toEqual([1, 2, 2191, 2192, 2193, 2195, 2196, 2211, 2895, 2940, 2945, 2950, 2952, 3058, 3059, 3108, 3777, 4936]);
    expect(processes.find((p) => p.pid === 2191)).toEqual({
      pid: 2191, ppid: 1, processName: 'postgres', username: 'postgres', state: 'Ss', memoryKb: 29888, cpuPercent: 0,
      commandLine: '/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf',
    });
    expect(processes.find((p) => p.pid === 4936)).toMatchObject({ processName: 'sshd', commandLine: expect.stringMatching(/^sshd: \/usr\/sbin\/sshd -f .* \[listener\] 0 of 10-100 startups$/) });
    expect(processes.find((p) => p.pid === 2940)).toMatchObject({ processName: 'beam.smp', username: 'rabbitmq', memoryKb: 122944, cpuPercent: 0.4 });
  });

  it('of a systemd host: the unit of each process; the sshd [priv] and @notty processes above ps left out', () => {
    const processes = processesOf('rhel-vm');
    expect(processes.map((p) => [p.pid, p.processName, p.unit])).toEqual([
      [1, 'systemd', 'init.scope'], [2, 'kthreadd', undefined], [712, 'systemd-journal', 'systemd-journald.service'], [801, 'chronyd', 'chronyd.service'],
      [842, 'sshd', 'sshd.service'], [905, 'nginx', 'nginx.service'], [906, 'nginx', 'nginx.service'], [907, 'nginx', 'nginx.service'],
      [1010, 'postgres', 'postgresql.service'], [1012, 'postgres', 'postgresql.service'], [1034, 'redis-server', 'redis.service'],
      [1501, 'agent', 'custom-agent.service'], [2210, 'postgres', 'postgresql.service'],
    ]);
    expect(processes.find((p) => p.pid === 2)).toEqual({ pid: 2, ppid: 0, processName: 'kthreadd', commandLine: '[kthreadd]', username: 'root', state: 'S', memoryKb: 0, cpuPercent: 0 });
  });

  it('of OpenSSH 9.8 or later: the "sshd-session" processes above ps left out, the listener kept', () => {
    const processes = processesOf('alpine-vm');
    expect(processes.map((p) => [p.pid, p.processName])).toEqual([[1, 'init'], [2, 'kthreadd'], [2260, 'syslogd'], [2391, 'sshd'], [2455, 'nginx'], [2456, 'nginx'], [2460, 'getty']]);
  });

  it('keep the sshd listener started without arguments ("sshd: /usr/sbin/sshd [listener] ...") above an older OpenSSH session', () => {
    const older = output('alpine-vm', 'processes').replaceAll('sshd-session: ', 'sshd: ');
    const processes = parseProcesses(older, output('alpine-vm', 'processNames'));
    expect(processes.map((p) => p.pid)).toEqual([1, 2, 2260, 2391, 2455, 2456, 2460]);
  });

  it('are named after the program in their arguments when comm has no line for them', () => {
    const ps = `@@self\n50\n@@ps\n   40     1 app     S     100  0.0 -    /opt/app/bin/worker --queue a\n   50     1 scan    R     100  0.0 -    ${PS_ARGS}\n`;
    expect(parseProcesses(ps, '')).toEqual([{ pid: 40, ppid: 1, processName: 'worker', commandLine: '/opt/app/bin/worker --queue a', username: 'app', state: 'S', memoryKb: 100, cpuPercent: 0 }]);
  });

  it('skip lines that do not parse', () => {
    expect(parseProcesses('@@self\n9\n@@ps\ngarbage\n  x  y\n   12     1 root S 10 0.0 - /sbin/agetty\n', '')).toEqual([
      { pid: 12, ppid: 1, processName: 'agetty', commandLine: '/sbin/agetty', username: 'root', state: 'S', memoryKb: 10, cpuPercent: 0 },
    ]);
  });
});

describe('sockets', () => {
  it('listening (captured): TCP over IPv4 and IPv6 with their program and pid, and a socket without a process', () => {
    expect(parseListening(output('debian-container', 'listening'))).toEqual([
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 25672, processName: 'beam.smp', pid: 2940 },
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 3306, processName: 'mariadbd', pid: 3777 },
      { protocol: 'tcp', localAddress: '0.0.0.0', localPort: 2024 },
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 1883, processName: 'mosquitto', pid: 2945 },
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 6379, processName: 'redis-server', pid: 2211 },
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 22299, processName: 'sshd', pid: 4936 },
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 5672, processName: 'beam.smp', pid: 2940 },
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 5432, processName: 'postgres', pid: 2191 },
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 4369, processName: 'epmd', pid: 2895 },
      { protocol: 'tcp', localAddress: '127.0.0.1', localPort: 4222, processName: 'nats-server', pid: 2950 },
      { protocol: 'tcp6', localAddress: '::1', localPort: 4369, processName: 'epmd', pid: 2895 },
      { protocol: 'tcp6', localAddress: '::1', localPort: 6379, processName: 'redis-server', pid: 2211 },
    ]);
  });

  it('listening (captured edge cases): "%lo" and "%eth0" scopes, "*:port", "[::]:port", and a program name holding quotes', () => {
    const quoted = { processName: 'my "q\\uo,te"', pid: 8873 };
    expect(parseListening(output('debian-container', 'listening', '-edge-cases')).filter((s) => s.pid === 8873)).toEqual([
      { protocol: 'udp', localAddress: '127.0.0.53', localPort: 5353, ...quoted },
      { protocol: 'udp6', localAddress: 'fe80::fc:ff:fe00:1', localPort: 5460, ...quoted },
      { protocol: 'udp', localAddress: '0.0.0.0', localPort: 16161, ...quoted },
      { protocol: 'tcp6', localAddress: '::', localPort: 22023, ...quoted },
      { protocol: 'tcp', localAddress: '0.0.0.0', localPort: 22022, ...quoted },
    ]);
  });

  it('listening: of several processes sharing a socket, the first is taken', () => {
    expect(parseListening(output('rhel-vm', 'listening')).filter((s) => s.localPort === 80)).toEqual([
      { protocol: 'tcp', localAddress: '0.0.0.0', localPort: 80, processName: 'nginx', pid: 907 },
      { protocol: 'tcp6', localAddress: '::', localPort: 80, processName: 'nginx', pid: 907 },
    ]);
  });

  it('established (captured): local and peer endpoints with the program', () => {
    expect(parseEstablished(output('debian-container', 'connections'))).toEqual([
      { localAddress: '127.0.0.1', localPort: 22299, remoteAddress: '127.0.0.1', remotePort: 39478, processName: 'sshd' },
      { localAddress: '127.0.0.1', localPort: 39478, remoteAddress: '127.0.0.1', remotePort: 22299, processName: 'ssh' },
      { localAddress: '127.0.0.1', localPort: 44590, remoteAddress: '127.0.0.1', remotePort: 4369, processName: 'beam.smp' },
      { localAddress: '127.0.0.1', localPort: 4369, remoteAddress: '127.0.0.1', remotePort: 44590, processName: 'epmd' },
    ]);
  });

  it('established (captured edge cases): IPv4-mapped addresses become IPv4, IPv6 stays, quoted program names survive', () => {
    const processName = 'my "q\\uo,te"';
    expect(parseEstablished(output('debian-container', 'connections', '-edge-cases')).filter((c) => c.processName === processName)).toEqual([
      { localAddress: '127.0.0.1', localPort: 60222, remoteAddress: '127.0.0.1', remotePort: 22022, processName },
      { localAddress: '127.0.0.1', localPort: 22022, remoteAddress: '127.0.0.1', remotePort: 60222, processName },
      { localAddress: '::1', localPort: 22023, remoteAddress: '::1', remotePort: 41870, processName },
      { localAddress: '::1', localPort: 41870, remoteAddress: '::1', remotePort: 22023, processName },
    ]);
  });

  it('established on a server: a connection without a process has no program name', () => {
    expect(parseEstablished(output('rhel-vm', 'connections'))).toEqual([
      { localAddress: '10.20.30.41', localPort: 22, remoteAddress: '10.20.0.5', remotePort: 51234, processName: 'sshd' },
      { localAddress: '10.20.30.41', localPort: 5432, remoteAddress: '10.20.30.50', remotePort: 40112, processName: 'postgres' },
      { localAddress: '10.20.30.41', localPort: 44120, remoteAddress: '10.20.30.60', remotePort: 443, processName: 'agent' },
      { localAddress: '10.20.30.41', localPort: 80, remoteAddress: '10.20.30.70', remotePort: 60880, processName: 'nginx' },
      { localAddress: '127.0.0.1', localPort: 6379, remoteAddress: '127.0.0.1', remotePort: 51880 },
    ]);
  });

  it('skip lines without two endpoints or of another kind', () => {
    expect(parseListening('@@listening\nraw UNCONN 0 0 0.0.0.0:255 0.0.0.0:*\ntcp LISTEN 0 1 nonsense\n')).toEqual([]);
    expect(parseEstablished('@@established\n0 0 10.0.0.1:22\n\n')).toEqual([]);
  });
});

describe('interfaces', () => {
  it('from ip -j (captured): loopback left out, link-local addresses left out, a speed of -1 or none is unknown', () => {
    expect(parseInterfaces(output('debian-container', 'interfaces'))).toEqual([
      { name: 'ifb0', ifIndex: 2, macAddress: 'f6:3d:ed:18:05:0f', ipAddresses: [], speedMbps: null, operStatus: 'down', mtu: 1500 },
      { name: 'ifb1', ifIndex: 3, macAddress: 'a6:4d:15:58:fb:d5', ipAddresses: [], speedMbps: null, operStatus: 'down', mtu: 1500 },
      { name: 'eth0', ifIndex: 4, macAddress: '02:fc:00:00:00:01', ipAddresses: ['192.0.2.2', 'fd00::2'], speedMbps: null, operStatus: 'up', mtu: 1400 },
    ]);
  });

  it('take the speed from /sys and lower-case the MAC address', () => {
    const text = '@@ip\n[{"ifindex":2,"ifname":"eno1","mtu":9000,"operstate":"UP","link_type":"ether","address":"3C:EC:EF:01:02:03","addr_info":[{"family":"inet","local":"10.1.2.3","scope":"global"}]}]\n@@speed\neno1\t10000\n';
    expect(parseInterfaces(text)).toEqual([{ name: 'eno1', ifIndex: 2, macAddress: '3c:ec:ef:01:02:03', ipAddresses: ['10.1.2.3'], speedMbps: 10000, operStatus: 'up', mtu: 9000 }]);
  });

  it('are undefined when ip printed no JSON (an old iproute2) or cut-off JSON', () => {
    expect(parseInterfaces('@@ip\nOption "-j" is unknown, try "ip -help".\n@@speed\n')).toBeUndefined();
    expect(parseInterfaces(output('debian-container', 'interfaces').slice(0, 400))).toBeUndefined();
    expect(parseInterfaces('@@ip\n{"ifname":"eth0"}\n')).toBeUndefined();
  });
});

describe('LLDP neighbours', () => {
  const capture = readFileSync(path.join(FIXTURES, 'lldpctl-json0.json'), 'utf8');

  it('from lldpctl (captured, lldpd sends the MAC as port id): the port description is the remote port', () => {
    expect(parseLldp(`@@lldp\n${capture}`)).toEqual([{ localPort: 'eth1', protocol: 'LLDP', remotePort: 'eth1', remoteChassisId: '82:ae:c1:f0:57:0d', remoteSystemName: 'hostb' }]);
  });

  it('take a port id of type ifname as the remote port, mark CDP, and leave out a chassis id that is no MAC', () => {
    const doc = JSON.parse(capture) as { lldp: { interface: Record<string, unknown>[] }[] };
    const neighbour = doc.lldp[0]?.interface[0] as Record<string, unknown>;
    Object.assign(neighbour, {
      via: 'CDPv2',
      chassis: [{ id: [{ type: 'local', value: 'FOC1234X0AB' }], name: [{ value: 'core-sw1.example.net' }] }],
      port: [{ id: [{ type: 'ifname', value: 'GigabitEthernet1/0/7' }], descr: [{ value: 'uplink to hostb' }] }],
    });
    expect(parseLldp(`@@lldp\n${JSON.stringify(doc)}`)).toEqual([{ localPort: 'eth1', protocol: 'CDP', remotePort: 'GigabitEthernet1/0/7', remoteSystemName: 'core-sw1.example.net' }]);
  });

  it('are undefined where lldpd does not run, empty without neighbours, undefined for output that is no JSON', () => {
    expect(parseLldp('')).toBeUndefined();
    expect(parseLldp('@@lldp\n{"lldp":[{"interface":[]}]}')).toEqual([]);
    expect(parseLldp('@@lldp\n{"lldp":[{}]}')).toEqual([]);
    expect(parseLldp('@@lldp\nlldpctl: unable to connect')).toBeUndefined();
  });

  it('tell when lldpd runs but its control socket was not found, and nothing otherwise', () => {
    const output = '@@lldp-unreadable\nlldpd runs but none of its control sockets was found\n';
    expect(lldpUnreadable(output)).toBe('lldpd runs but none of its control sockets was found');
    expect(parseLldp(output)).toBeUndefined();
    expect(lldpUnreadable('')).toBeUndefined();
    expect(lldpUnreadable('@@lldp\n{"lldp":[]}')).toBeUndefined();
  });
});

describe('systemd units', () => {
  it('from systemctl show: every service block, MainPID only where a process runs, an empty UnitFileState left out', () => {
    const units = parseSystemd(output('rhel-vm', 'systemd'));
    expect(units?.map((u) => u.id)).toEqual([
      'chronyd.service', 'custom-agent.service', 'firewalld.service', 'kdump.service', 'nginx.service', 'postgresql.service',
      'redis.service', 'sshd.service', 'syslog.service', 'systemd-journald.service',
    ]);
    expect(units?.find((u) => u.id === 'nginx.service')).toEqual({
      id: 'nginx.service', description: 'The nginx HTTP and reverse proxy server', activeState: 'active', subState: 'running', unitFileState: 'enabled', mainPid: 905,
    });
    expect(units?.find((u) => u.id === 'kdump.service')).toEqual({ id: 'kdump.service', description: 'Crash recovery kernel arming', activeState: 'active', subState: 'exited', unitFileState: 'enabled' });
    expect(units?.find((u) => u.id === 'syslog.service')).toEqual({ id: 'syslog.service', description: 'syslog.service', activeState: 'inactive', subState: 'dead', unitFileState: undefined });
  });

  it('are undefined without systemd, and leave out blocks of other unit types', () => {
    expect(parseSystemd('')).toBeUndefined();
    expect(parseSystemd('@@systemd\nId=sshd.socket\nActiveState=active\n\nId=a=b.service\nDescription=x=y\n')).toEqual([
      { id: 'a=b.service', description: 'x=y', activeState: undefined, subState: undefined, unitFileState: undefined },
    ]);
  });
});

describe('services', () => {
  it('with systemd: every unit, its listen ports found through the unit of the listening process', () => {
    const services = buildServices(parseSystemd(output('rhel-vm', 'systemd')), processesOf('rhel-vm'), parseListening(output('rhel-vm', 'listening')));
    const service = (serviceName: string, displayName: string, state: string, startMode: string | null, listenPorts: { protocol: string; port: number }[]) =>
      ({ serviceName, displayName, state, startMode, listenPorts, sourceConnector: 'SSH' });
    expect(services).toEqual([
      service('chronyd.service', 'NTP client/server', 'running', 'enabled', [{ protocol: 'udp', port: 323 }, { protocol: 'udp6', port: 323 }]),
      service('custom-agent.service', 'Custom monitoring agent', 'running', 'enabled', [{ protocol: 'tcp', port: 9100 }]),
      service('firewalld.service', 'firewalld - dynamic firewall daemon', 'inactive', 'disabled', []),
      service('kdump.service', 'Crash recovery kernel arming', 'active', 'enabled', []),
      service('nginx.service', 'The nginx HTTP and reverse proxy server', 'running', 'enabled', [{ protocol: 'tcp', port: 80 }, { protocol: 'tcp6', port: 80 }]),
      service('postgresql.service', 'PostgreSQL database server', 'running', 'enabled', [{ protocol: 'tcp', port: 5432 }]),
      service('redis.service', 'Redis persistent key-value database', 'running', 'enabled', [{ protocol: 'tcp', port: 6379 }]),
      service('sshd.service', 'OpenSSH server daemon', 'running', 'enabled', [{ protocol: 'tcp', port: 22 }, { protocol: 'tcp6', port: 22 }]),
      service('syslog.service', 'syslog.service', 'inactive', null, []),
      service('systemd-journald.service', 'Journal Service', 'running', 'static', []),
    ]);
  });

  it('without systemd (captured container): one running service per listening program, sorted by name; a socket without a program is none', () => {
    const services = buildServices(undefined, processesOf('debian-container'), parseListening(output('debian-container', 'listening')));
    expect(services.map((s) => [s.serviceName, s.listenPorts])).toEqual([
      ['beam.smp', [{ protocol: 'tcp', port: 5672 }, { protocol: 'tcp', port: 25672 }]],
      ['epmd', [{ protocol: 'tcp', port: 4369 }, { protocol: 'tcp6', port: 4369 }]],
      ['mariadbd', [{ protocol: 'tcp', port: 3306 }]],
      ['mosquitto', [{ protocol: 'tcp', port: 1883 }]],
      ['nats-server', [{ protocol: 'tcp', port: 4222 }]],
      ['postgres', [{ protocol: 'tcp', port: 5432 }]],
      ['redis-server', [{ protocol: 'tcp', port: 6379 }, { protocol: 'tcp6', port: 6379 }]],
      ['sshd', [{ protocol: 'tcp', port: 22299 }]],
    ]);
    expect(services[0]).toEqual({ serviceName: 'beam.smp', displayName: null, state: 'running', startMode: null, listenPorts: [{ protocol: 'tcp', port: 5672 }, { protocol: 'tcp', port: 25672 }], sourceConnector: 'SSH' });
  });
});

describe('hostile output', () => {
  const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/;
  const strings = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];

  it('of facts: control characters, escape sequences\' ESC, bidi overrides and NULs are stripped', () => {
    const facts = parseFacts(hostile.facts);
    expect(facts).toEqual({
      hostname: ']0;ownedweb-1',
      fqdn: 'web-1.elpmaxe.net',
      assetType: 'VM',
      vendor: 'Evil Corp',
      model: 'KVM[2J',
      serialNumber: 'SN123[K456',
      attributes: { osName: '[31mDebian[0m', osVersion: '12', virtualization: 'kvm' },
    });
  });

  it('of packages: names and fields cleaned, a 100 kB maintainer capped at 512 characters, a name of control characters only dropped', () => {
    expect(parsePackages(hostile.packages)).toEqual([
      { packageName: '[31mevil-pkg[0m', version: '1.0-1', publisher: 'Mallory Team', packageManager: 'dpkg' },
      { packageName: 'long-pkg', version: '2.0', publisher: 'A'.repeat(512), packageManager: 'dpkg' },
    ]);
  });

  it('of processes: a 100 kB command line capped at 64 KiB, names cleaned, a process named by control characters only dropped', () => {
    const processes = parseProcesses(hostile.processes, hostile.processNames);
    expect(processes).toHaveLength(1);
    expect(processes[0]).toMatchObject({ pid: 10, processName: 'evil[1m', username: 'root' });
    expect(processes[0]?.commandLine).toHaveLength(65536);
    expect(processes[0]?.commandLine?.startsWith(`/usr/bin/evil [2J--flag ${'B'.repeat(100)}`)).toBe(true);
  });

  it('of sockets and units: program names and descriptions cleaned', () => {
    expect(parseListening(hostile.listening)).toEqual([{ protocol: 'tcp', localAddress: '0.0.0.0', localPort: 8080, processName: '[31mx', pid: 10 }]);
    expect(parseSystemd(hostile.systemd)).toEqual([{ id: 'evil[0m.service', description: 'enoD [5mblink', activeState: 'active', subState: 'running', unitFileState: 'enabled', mainPid: 10 }]);
  });

  it('leaves no control character in anything parsed', () => {
    const parsed = [
      parseFacts(hostile.facts), parsePackages(hostile.packages), parseProcesses(hostile.processes, hostile.processNames),
      parseListening(hostile.listening), parseSystemd(hostile.systemd),
    ];
    expect(strings(parsed).filter((text) => CONTROL.test(text))).toEqual([]);
  });
});
