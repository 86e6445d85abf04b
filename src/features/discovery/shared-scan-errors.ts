// The scan error codes that every method shares (discovery_run_errors.code). They are what people,
// alerts and the diagnosis rules key on, so a code keeps its meaning once released. A connector's
// own codes are declared in its folder; the registry (connectors/registry.ts) gathers them all.
import type { ScanErrorDefinition } from './scan-error.js';

export const SHARED_ERRORS = {
  DNS_FAILURE: {
    description: 'A target name does not resolve to an address.',
    explanation: {
      summary: 'A host name of the target does not resolve to an address, so that host was not scanned.',
      causes: [
        'The name is misspelt, or the host was renamed or retired.',
        'The name lives in a DNS zone (internal or split-horizon) that the resolver of the worker does not serve.',
        'The DNS resolver of the worker is unreachable or failing.',
      ],
      actions: [
        "Check the name in the target's addresses; correct it, or replace it with the host's IP address.",
        'Resolve the name on the worker host with the resolver the service uses (getent hosts NAME).',
        'Remove the name from the target if the host was retired.',
      ],
      confidence: 'HIGH',
    },
  },
  HOST_UNREACHABLE: {
    description: 'The network reports no route to the address (host down or filtered by a router).',
    explanation: {
      summary: 'The network reports no route to some addresses: those hosts are down, or a router filters them.',
      causes: [
        'The host is powered off or disconnected.',
        'A router or firewall between the worker and the host rejects the traffic (ICMP unreachable).',
        'The address ranges of the target include addresses that are not in use.',
      ],
      actions: [
        'Check that the host is up (console, hypervisor, or ping from the worker host).',
        "Check the routes and access lists between the worker's network and the target's network.",
        "Narrow the target's ranges to the addresses in use.",
      ],
      confidence: 'MEDIUM',
    },
  },
  CONNECTION_REFUSED: {
    description: 'The address answered but refused the connection: nothing listens on the port.',
    explanation: {
      summary: 'Hosts answered but refused the connection: nothing listens on the port the scan needed.',
      causes: [
        'The service (sshd, for example) is not running or not installed on the host.',
        "The service listens on another port than the target's (sshPort, snmpPort).",
        'A host firewall rejects connections from the worker.',
      ],
      actions: [
        'Check on the host that the service runs and on which port (ss -tln).',
        "Set the target's port to the one the service listens on.",
        "Allow the worker's address in the host firewall.",
      ],
      confidence: 'HIGH',
    },
  },
  CONNECTION_TIMEOUT: {
    description: 'Nothing answered on the port within the connect time-out.',
    explanation: {
      summary: 'Nothing answered on the port within the connect time-out: packets are dropped on the way, or the host is down.',
      causes: [
        'A firewall silently drops connections from the worker to that port.',
        'The host is down or overloaded.',
        'The network path is slow and the connect time-out too short for it.',
      ],
      actions: [
        'Check that the firewalls on the path and on the host allow the worker to reach the port.',
        'Check that the host is up and responsive.',
        'For slow or distant networks, raise service.discovery.connect-timeout-ms.',
      ],
      confidence: 'MEDIUM',
    },
  },
  NO_CREDENTIALS: {
    description: 'No credential of the right kind is listed on the target or matches the address.',
    explanation: {
      summary: 'No credential of the right kind applied to some addresses, so the service could not log in to them.',
      causes: [
        'The target lists no credential of the kind its methods need (SSH_PASSWORD or SSH_KEY for SSH, SNMP_V2C or SNMP_V3 for SNMP).',
        "No credential's match pattern covers those addresses.",
      ],
      actions: [
        "Add a credential of the right kind to the target's credentialIds.",
        "Widen the match pattern of a suitable credential to cover the target's addresses.",
        'Remove the method from the target if those hosts should not be logged in to.',
      ],
      confidence: 'HIGH',
    },
  },
  HOST_TIMEOUT: {
    description: 'The host did not finish within the per-host time-out; what it gave is kept, nothing is retired.',
    explanation: {
      summary: 'Some hosts did not finish within the per-host time-out; what they gave is kept and nothing was retired for them.',
      causes: ['The host or the link to it is slow.', 'The host produced unusually much data (many packages, processes or interfaces).'],
      actions: ['Check the performance of the host and of the link to it.', 'Run the scan again; raise the per-host time-out if the host is merely large.'],
      confidence: 'MEDIUM',
    },
  },
  HOST_LIMIT_REACHED: {
    description: "The run reached the method's limit of hosts per run (its settings' maxHosts); the addresses after it were not tried with that method.",
    explanation: {
      summary: "The run tried a method at as many hosts as the target's settings allow; the other addresses were left out of it.",
      causes: [
        "The target's range holds more live hosts than the method's settings.<METHOD>.maxHosts.",
        'The range answers on addresses where no host is (a proxy ARP or a firewall that accepts every connection), each counted as a host.',
      ],
      actions: [
        "Raise the target's settings.<METHOD>.maxHosts if the hosts are real.",
        'Split the range into several targets, scanned at different times.',
      ],
      confidence: 'HIGH',
    },
  },
  CREDENTIAL_UNREADABLE: {
    description: 'A credential could not be decrypted with the configured vault keys.',
    explanation: {
      summary: 'Credentials could not be decrypted with the configured vault keys, so they were not used.',
      causes: [
        'service.vault.keys changed and no longer holds the key version that sealed these secrets.',
        'The processes of the service (api and workers) run with different vault keys.',
        'The generated local keys (data/local-secrets.json) were lost or replaced.',
      ],
      actions: [
        'Put every key version that sealed secrets back into service.vault.keys (the highest encrypts, all decrypt).',
        'Give every process the same service.vault.keys.',
        'If the old key is lost, enter the secrets of the affected credentials again.',
      ],
      confidence: 'HIGH',
    },
  },
  WORKER_LOST: {
    description: 'A chunk of the run was lost with its worker on its last attempt (the record names its addresses), or the worker planning or loading the run stopped reporting; its lease expired.',
    explanation: {
      summary: 'A worker running the scan stopped reporting (crashed, killed or restarted): a chunk lost on its last attempt left its addresses not all scanned, or the run was failed when the lease of its planning or loading expired.',
      causes: [
        'The worker process was restarted or killed (a deployment, the out-of-memory killer), as many times as a chunk may be taken (service.discovery.chunk-max-attempts).',
        'The worker lost its connection to PostgreSQL and could not renew the lease.',
      ],
      actions: [
        "Look in the worker's log and the host's system log around the run's time for a restart or an out-of-memory kill.",
        'Run the scan again.',
        'If memory ran out, lower service.discovery.concurrency.',
      ],
      confidence: 'MEDIUM',
    },
  },
  INTERNAL_ERROR: {
    description: 'The scan stopped on an unexpected error in the service.',
    explanation: {
      summary: 'The scan stopped on an unexpected error in the service.',
      causes: ["A defect of the service, triggered by this target's data.", 'A store of the service was briefly unavailable.'],
      actions: ["Look in the service log for the run's id.", 'Run the scan again; report the defect with the log if it happens again.'],
      confidence: 'LOW',
    },
  },
  SCANNER_RECORD_INVALID: {
    description: "A remote scanner reported a record (an observation, an estate, address facts) of a shape the service cannot load: that record was left out, the rest of the address's result kept.",
    explanation: {
      summary: "A remote scanner sent a record the service could not load; that record was left out and the rest of the run was loaded.",
      causes: ["The scanner runs another version of the service than the service itself.", 'The scanner process was altered, or is not ours.'],
      actions: ['Compare the version GET /api/v1/scanners shows for the scanner with the service\'s, and run the same on both.', 'Run the scan again after the upgrade.'],
      confidence: 'MEDIUM',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

export type SharedErrorCode = keyof typeof SHARED_ERRORS;

/** The code of a socket error (its errno name) that says the address could not be reached, if it is one. */
export function networkErrorCode(errno: string | undefined): SharedErrorCode | undefined {
  return errno === undefined ? undefined : NETWORK_CODES[errno];
}

const NETWORK_CODES: Record<string, SharedErrorCode> = {
  ECONNREFUSED: 'CONNECTION_REFUSED',
  ETIMEDOUT: 'CONNECTION_TIMEOUT',
  EHOSTUNREACH: 'HOST_UNREACHABLE',
  ENETUNREACH: 'HOST_UNREACHABLE',
  EHOSTDOWN: 'HOST_UNREACHABLE',
  ENOTFOUND: 'DNS_FAILURE',
  EAI_AGAIN: 'DNS_FAILURE',
};
