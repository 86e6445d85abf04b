// The application signatures: what turns packages, processes and listening ports into SOFTWARE
// assets. An application is recognised by a running process of its own (a package alone is
// installed, not running); its package, when installed, gives the version, and the ports its
// processes listen on are recorded.
import type { ObservedApplication, ObservedPackage, ObservedProcess } from './host-observation.js';
import type { Socket } from './connectors/ssh/linux-parsers.js';

interface Signature {
  id: string;
  name: string;
  vendor?: string;
  /** Process names (comm) of the application. */
  processes: RegExp;
  /** Package names, in any package manager, that carry its version. */
  packages: RegExp;
}

export const APPLICATION_SIGNATURES: readonly Signature[] = [
  { id: 'nginx', name: 'nginx', vendor: 'F5', processes: /^nginx$/, packages: /^nginx(-core|-full|-light)?$/ },
  { id: 'apache-httpd', name: 'Apache HTTP Server', vendor: 'Apache Software Foundation', processes: /^(apache2|httpd)$/, packages: /^(apache2|httpd)$/ },
  { id: 'haproxy', name: 'HAProxy', processes: /^haproxy$/, packages: /^haproxy$/ },
  { id: 'tomcat', name: 'Apache Tomcat', vendor: 'Apache Software Foundation', processes: /^(tomcat\d*|catalina)$/, packages: /^tomcat\d*$/ },
  // Not Debian's "postgresql" metapackage: its version (15+248) is its own, not the server's.
  { id: 'postgresql', name: 'PostgreSQL', vendor: 'PostgreSQL Global Development Group', processes: /^(postgres|postmaster)$/, packages: /^postgresql-\d+$|^postgresql\d*-server$/ },
  { id: 'mysql', name: 'MySQL', vendor: 'Oracle', processes: /^mysqld$/, packages: /^mysql(-community)?-server(-core)?(-\d.*)?$/ },
  { id: 'mariadb', name: 'MariaDB', vendor: 'MariaDB Foundation', processes: /^mariadbd$/, packages: /^mariadb-server(-core)?(-\d.*)?$/ },
  { id: 'mongodb', name: 'MongoDB', vendor: 'MongoDB', processes: /^mongod$/, packages: /^mongodb(-org)?(-server)?$/ },
  { id: 'redis', name: 'Redis', processes: /^redis-server$/, packages: /^redis(-server)?$/ },
  { id: 'memcached', name: 'Memcached', processes: /^memcached$/, packages: /^memcached$/ },
  { id: 'elasticsearch', name: 'Elasticsearch', vendor: 'Elastic', processes: /^elasticsearch$/, packages: /^elasticsearch$/ },
  { id: 'rabbitmq', name: 'RabbitMQ', vendor: 'Broadcom', processes: /^(beam\.smp|rabbitmq-server)$/, packages: /^rabbitmq-server$/ },
  { id: 'mosquitto', name: 'Eclipse Mosquitto', vendor: 'Eclipse Foundation', processes: /^mosquitto$/, packages: /^mosquitto$/ },
  { id: 'nats', name: 'NATS Server', processes: /^nats-server$/, packages: /^nats-server$/ },
  { id: 'kafka', name: 'Apache Kafka', vendor: 'Apache Software Foundation', processes: /^kafka(-server)?$/, packages: /^kafka$/ },
  { id: 'openldap', name: 'OpenLDAP', processes: /^slapd$/, packages: /^(slapd|openldap-servers)$/ },
  { id: '389-ds', name: '389 Directory Server', vendor: 'Red Hat', processes: /^ns-slapd$/, packages: /^389-ds-base$/ },
  { id: 'bind', name: 'BIND', vendor: 'ISC', processes: /^named$/, packages: /^(bind9|bind)$/ },
  { id: 'openssh-server', name: 'OpenSSH server', vendor: 'OpenBSD', processes: /^sshd$/, packages: /^(openssh-server|openssh)$/ },
  { id: 'net-snmp', name: 'Net-SNMP agent', processes: /^snmpd$/, packages: /^(snmpd|net-snmp)$/ },
  { id: 'lldpd', name: 'lldpd', processes: /^lldpd$/, packages: /^lldpd$/ },
  { id: 'docker', name: 'Docker Engine', vendor: 'Docker', processes: /^dockerd$/, packages: /^(docker-ce|docker\.io|docker-engine)$/ },
  { id: 'containerd', name: 'containerd', processes: /^containerd$/, packages: /^(containerd|containerd\.io)$/ },
  { id: 'kubelet', name: 'Kubernetes kubelet', processes: /^kubelet$/, packages: /^kubelet$/ },
];

const BY_ID = new Map(APPLICATION_SIGNATURES.map((s) => [s.id, s]));

export interface Recognised {
  applications: ObservedApplication[];
  /** The application id of each process that belongs to one, by pid. */
  processApplication: Map<number, string>;
}

/** The applications running on a host, and which processes are theirs. */
export function recogniseApplications(packages: ObservedPackage[], processes: ObservedProcess[], listening: Socket[]): Recognised {
  const processApplication = new Map<number, string>();
  const found = new Map<string, Set<number>>();
  for (const p of processes) {
    const signature = APPLICATION_SIGNATURES.find((s) => s.processes.test(p.processName));
    if (!signature) continue;
    processApplication.set(p.pid, signature.id);
    found.set(signature.id, (found.get(signature.id) ?? new Set()).add(p.pid));
  }
  const applications = [...found].map(([id, pids]): ObservedApplication => {
    const signature = BY_ID.get(id) as Signature;
    const version = packages.find((p) => signature.packages.test(p.packageName))?.version ?? undefined;
    const ports = [...new Set(listening.filter((s) => s.pid !== undefined && pids.has(s.pid)).map((s) => s.localPort))].sort((a, b) => a - b);
    return { id, name: signature.name, ...(signature.vendor ? { vendor: signature.vendor } : {}), ...(version ? { version } : {}), listenPorts: ports };
  });
  return { applications: applications.sort((a, b) => a.id.localeCompare(b.id)), processApplication };
}
