// The application signatures over parsed fixture hosts (test/fixtures/ssh) and small cases.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { recogniseApplications } from '../../src/features/discovery/application-catalogue.js';
import type { ObservedPackage, ObservedProcess } from '../../src/features/discovery/host-observation.js';
import type { LinuxCommand } from '../../src/features/discovery/connectors/ssh/linux-commands.js';
import { parseListening, parsePackages, parseProcesses, type Socket } from '../../src/features/discovery/connectors/ssh/linux-parsers.js';
import { PROJECT_ROOT } from '../../src/platform/project-root.js';

const output = (host: string, command: LinuxCommand) => readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'ssh', host, `${command}.txt`), 'utf8');

function recogniseOn(host: string) {
  const packages = parsePackages(output(host, 'packages')) ?? [];
  const processes = parseProcesses(output(host, 'processes'), output(host, 'processNames'));
  return recogniseApplications(packages, processes, parseListening(output(host, 'listening')));
}

const running = (pid: number, processName: string): ObservedProcess => ({ pid, ppid: 1, processName });
const pkg = (packageName: string, version: string): ObservedPackage => ({ packageName, version, packageManager: 'dpkg' });
const socket = (pid: number, localPort: number, protocol: Socket['protocol'] = 'tcp'): Socket => ({ protocol, localAddress: '0.0.0.0', localPort, pid });

describe('recognised applications', () => {
  it('on the captured Debian container: each running application, its version from its package, the ports of its processes', () => {
    const { applications, processApplication } = recogniseOn('debian-container');
    expect(applications).toEqual([
      { id: 'mariadb', name: 'MariaDB', vendor: 'MariaDB Foundation', version: '1:10.11.19-0+deb12u1', listenPorts: [3306] },
      { id: 'mosquitto', name: 'Eclipse Mosquitto', vendor: 'Eclipse Foundation', version: '2.0.11-1.2+deb12u2', listenPorts: [1883] },
      { id: 'nats', name: 'NATS Server', version: '2.9.10-1+b3', listenPorts: [4222] },
      { id: 'openssh-server', name: 'OpenSSH server', vendor: 'OpenBSD', version: '1:9.2p1-2+deb12u10', listenPorts: [22299] },
      // The server's package (postgresql-15), not Debian's "postgresql" metapackage (15+248+deb12u2).
      { id: 'postgresql', name: 'PostgreSQL', vendor: 'PostgreSQL Global Development Group', version: '15.20-0+deb12u1', listenPorts: [5432] },
      { id: 'rabbitmq', name: 'RabbitMQ', vendor: 'Broadcom', version: '3.10.8-1.1+deb12u1', listenPorts: [5672, 25672] },
      { id: 'redis', name: 'Redis', version: '5:7.0.15-1~deb12u10', listenPorts: [6379] },
    ]);
    expect([...processApplication]).toEqual([
      [2191, 'postgresql'], [2192, 'postgresql'], [2193, 'postgresql'], [2195, 'postgresql'], [2196, 'postgresql'], [2211, 'redis'],
      [2940, 'rabbitmq'], [2945, 'mosquitto'], [2950, 'nats'], [3777, 'mariadb'], [4936, 'openssh-server'],
    ]);
  });

  it('on RHEL: versions from rpm packages (postgresql-server), ports of any process of the application (an nginx worker)', () => {
    expect(recogniseOn('rhel-vm').applications).toEqual([
      { id: 'nginx', name: 'nginx', vendor: 'F5', version: '1.20.1-14.el9_2.1', listenPorts: [80] },
      { id: 'openssh-server', name: 'OpenSSH server', vendor: 'OpenBSD', version: '8.7p1-38.el9', listenPorts: [22] },
      { id: 'postgresql', name: 'PostgreSQL', vendor: 'PostgreSQL Global Development Group', version: '13.14-1.el9_3', listenPorts: [5432] },
      { id: 'redis', name: 'Redis', version: '6.2.7-1.el9', listenPorts: [6379] },
    ]);
  });

  it('on Alpine: versions from apk packages; the sshd listener counts, the connector\'s own sshd-session does not', () => {
    const { applications, processApplication } = recogniseOn('alpine-vm');
    expect(applications).toEqual([
      { id: 'nginx', name: 'nginx', vendor: 'F5', version: '1.26.3-r0', listenPorts: [80, 443] },
      { id: 'openssh-server', name: 'OpenSSH server', vendor: 'OpenBSD', version: '9.9_p2-r0', listenPorts: [22] },
    ]);
    expect([...processApplication]).toEqual([[2391, 'openssh-server'], [2455, 'nginx'], [2456, 'nginx']]);
  });

  it('need a running process: an installed package alone, or a port of another process, is no application', () => {
    expect(recogniseApplications([pkg('redis-server', '5:7.0.15-1'), pkg('nginx', '1.22.1-9')], [running(10, 'bash')], [socket(10, 6379)])).toEqual({ applications: [], processApplication: new Map() });
  });

  it('without its package: no version; ports deduplicated over IPv4/IPv6 and sorted', () => {
    const { applications } = recogniseApplications([], [running(7, 'haproxy')], [socket(7, 8443), socket(7, 80), socket(7, 80, 'tcp6'), socket(8, 9000)]);
    expect(applications).toEqual([{ id: 'haproxy', name: 'HAProxy', listenPorts: [80, 8443] }]);
  });

  it('match process names exactly (no substring) and take the version from the first matching package', () => {
    const { applications } = recogniseApplications(
      [pkg('nginx-common', '0'), pkg('nginx-core', '1.22.1-9'), pkg('nginx', '1.22.1-9+deb12u1')],
      [running(1, 'nginx'), running(2, 'nginx-exporter'), running(3, 'mysqld_exporter'), running(4, 'tomcat9'), running(5, 'ns-slapd'), running(6, 'slapd')],
      [],
    );
    expect(applications).toEqual([
      { id: '389-ds', name: '389 Directory Server', vendor: 'Red Hat', listenPorts: [] },
      { id: 'nginx', name: 'nginx', vendor: 'F5', version: '1.22.1-9', listenPorts: [] },
      { id: 'openldap', name: 'OpenLDAP', listenPorts: [] },
      { id: 'tomcat', name: 'Apache Tomcat', vendor: 'Apache Software Foundation', listenPorts: [] },
    ]);
  });
});
