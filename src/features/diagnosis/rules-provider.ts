// The built-in provider: a rule per scan error code, so that the feature explains failed runs with
// no model at all. The table is typed by ScanErrorCode: a code added to discovery without a rule
// does not compile.
import type { ScanErrorCode } from '../discovery/scan-error-codes.js';
import type { Confidence, DiagnosisAnswer, DiagnosisContext, DiagnosisProvider } from './diagnosis-provider.js';

export const RULES_MODEL = 'rules-v1';

interface Rule {
  summary: string;
  causes: string[];
  actions: string[];
  confidence: Confidence;
}

export const RULES: Record<ScanErrorCode, Rule> = {
  DNS_FAILURE: {
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
  HOST_UNREACHABLE: {
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
  CONNECTION_REFUSED: {
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
  CONNECTION_TIMEOUT: {
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
  NO_CREDENTIALS: {
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
  SSH_AUTH_FAILED: {
    summary: 'The SSH servers refused every credential offered.',
    causes: [
      'The user name, password or key of the credential is wrong or out of date (a password was changed).',
      'The account is locked, expired or missing on the host.',
      'The SSH server does not allow that authentication method or user (PasswordAuthentication, AllowUsers, authorized_keys).',
    ],
    actions: [
      'Try the login by hand from the worker host (ssh -p PORT USER@HOST) with the same credential.',
      'Update the secret of the credential (PUT /api/v1/credentials/{id}).',
      "Read the host's authentication log and sshd_config for the reason of the refusal.",
    ],
    confidence: 'HIGH',
  },
  HOST_KEY_CHANGED: {
    summary: 'A host presented another SSH host key than the one pinned at first contact; it was not inventoried, as a guard against a man-in-the-middle.',
    causes: [
      'The host was reinstalled or its host keys were regenerated.',
      'The address now belongs to another machine (re-addressing, DHCP).',
      'Someone intercepts the connection (man-in-the-middle).',
    ],
    actions: [
      "Confirm with the host's owner that the key change is expected, comparing fingerprints (ssh-keygen -lf on the host).",
      'If it is expected, replace the pinned key of the address so that the next scan accepts the new one.',
      'If it is not expected, treat it as a security incident and keep the host out of scans.',
    ],
    confidence: 'HIGH',
  },
  SSH_PROTOCOL_ERROR: {
    summary: 'The SSH handshake failed: the port does not speak SSH, or client and server have no algorithm in common.',
    causes: [
      "Another service listens on the target's SSH port.",
      'The SSH server is very old or hardened, with key exchange, cipher or host key algorithms the service does not offer.',
      'A middlebox cuts the connection during the handshake.',
    ],
    actions: [
      "Check that the target's sshPort is the SSH server's port (the banner starts with SSH-2.0).",
      "Compare the server's KexAlgorithms, Ciphers and HostKeyAlgorithms with modern defaults; update old firmware.",
    ],
    confidence: 'MEDIUM',
  },
  COMMAND_PERMISSION_DENIED: {
    summary: 'Inventory commands were refused for lack of permission, so part of the hosts\' data is missing.',
    causes: [
      'The account lacks rights that some commands need (process owners and hardware details need root).',
      'sudo is not allowed, or asks for a password or a terminal.',
      'A restricted shell or a security policy (SELinux, AppArmor) blocks the commands.',
    ],
    actions: [
      'Give the account read rights or password-less sudo for the inventory commands only.',
      'Use a credential whose account has those rights.',
    ],
    confidence: 'HIGH',
  },
  LLDP_UNREADABLE: {
    summary: 'lldpd runs on some hosts but its control socket could not be read, so their LLDP neighbours (the cables) are missing.',
    causes: [
      'lldpd was started with a control socket (-u) in a place the scan account cannot see, or by a wrapper that hides its arguments.',
      'The socket is in a private /run of a container or a service sandbox.',
    ],
    actions: [
      'Start lldpd with its default socket (/run/lldpd.socket) or a -u path on its command line.',
      'Give the scan account read access to the socket (on Debian, the adm group for lldpcli).',
    ],
    confidence: 'MEDIUM',
  },
  COMMAND_TIMEOUT: {
    summary: 'Inventory commands did not finish within their time limit, so part of the hosts\' data is missing.',
    causes: [
      'The host is overloaded or very slow.',
      'A command is slow on a large host (many packages or processes).',
      'A hung network mount blocks the commands.',
    ],
    actions: [
      'Check the load of the host and look for hung mounts (a df that does not return).',
      'Run the scan again at a quieter time.',
    ],
    confidence: 'MEDIUM',
  },
  COMMAND_FAILED: {
    summary: 'Inventory commands failed or are not installed on the hosts, so part of their data is missing.',
    causes: [
      'A tool the inventory uses is not installed (ip, ss, dpkg-query or rpm, lldpctl).',
      'The host runs an operating system or a minimal image that lacks the command.',
      'The command ran and exited with an error.',
    ],
    actions: [
      "Read the error records' messages to see which command failed on which address.",
      'Install the missing tools, or scan appliances by SNMP instead of SSH.',
    ],
    confidence: 'MEDIUM',
  },
  OUTPUT_LIMIT_EXCEEDED: {
    summary: 'An inventory command printed more than the output limit, so its part of the host\'s data is incomplete and was not retired.',
    causes: ['The host is unusually large (many packages, processes or connections).', 'A command printed far more than usual (a runaway process list, a flood of sockets).'],
    actions: ['Raise service.discovery.output-max-bytes if the host is merely large.', 'Look at the host for the runaway processes or connections.'],
    confidence: 'HIGH',
  },
  HOST_TIMEOUT: {
    summary: 'Some hosts did not finish within the per-host time-out; what they gave is kept and nothing was retired for them.',
    causes: ['The host or the link to it is slow.', 'The host produced unusually much data (many packages, processes or interfaces).'],
    actions: ['Check the performance of the host and of the link to it.', 'Run the scan again; raise the per-host time-out if the host is merely large.'],
    confidence: 'MEDIUM',
  },
  SNMP_NO_ANSWER: {
    summary: 'SNMP agents did not answer: they are down or filtered, or the v2c community is wrong (an agent ignores a wrong community without a word).',
    causes: [
      "The SNMP agent is not running, or not listening on the target's snmpPort or on that address.",
      'UDP to the SNMP port is filtered between the worker and the device.',
      "The community is wrong, or the agent's access list does not admit the worker's address.",
    ],
    actions: [
      'Query the device by hand from the worker host (snmpget -v2c -c COMMUNITY HOST 1.3.6.1.2.1.1.1.0).',
      "Check the agent's configuration: community, listen address, allowed sources.",
      'Update the community of the SNMP_V2C credential if it changed.',
    ],
    confidence: 'MEDIUM',
  },
  SNMP_AUTH_FAILED: {
    summary: 'SNMP v3 agents refused the user, its authentication or its privacy settings.',
    causes: [
      'The user is not configured on the agent.',
      'The authentication or privacy protocol, or their keys, differ from the agent\'s.',
      'The security level of the credential does not match the user on the agent.',
    ],
    actions: [
      "Compare the SNMP_V3 credential's username, securityLevel, authProtocol and privProtocol with the agent's user.",
      'Enter the authentication and privacy keys again.',
      'Query the device by hand from the worker host (snmpget -v3) with the same settings.',
    ],
    confidence: 'HIGH',
  },
  SNMP_ERROR: {
    summary: 'SNMP agents answered with errors, so part of the devices\' data is missing.',
    causes: [
      "The agent's view does not include the MIB tables the inventory reads.",
      'The agent is overloaded or has a defect.',
    ],
    actions: [
      "Widen the agent's view for the community or user (system, interfaces, IP, bridge and LLDP tables).",
      "Check the device's logs; update its firmware if the error persists.",
    ],
    confidence: 'MEDIUM',
  },
  VCENTER_AUTH_FAILED: {
    summary: 'The vCenter refused every HTTP_BASIC credential offered: its inventory was not read.',
    causes: [
      'The user name or password of the credential is wrong, or the password was changed or expired.',
      'The account is locked out, or exists in another identity source (for example user@vsphere.local against a domain user).',
    ],
    actions: [
      'Sign in to the vSphere Client with the same user name and password.',
      "Update the credential's password, or name the user with its domain (user@vsphere.local).",
      'Give the account at least the read-only role on the vCenter root, propagated to its children.',
    ],
    confidence: 'HIGH',
  },
  CERTIFICATE_UNTRUSTED: {
    summary: 'The vCenter presented a certificate that is not trusted, so nothing was sent to it.',
    causes: [
      "The vCenter uses its own VMware Certificate Authority (VMCA) or a self-signed certificate, unknown to the worker's trust store.",
      'The certificate names another host than the address scanned.',
    ],
    actions: [
      "Add the vCenter's root CA (from https://VCENTER/certs/download.zip) as the target's settings.VCENTER.caCertificate.",
      'Scan the vCenter by the name its certificate carries.',
      "Only on a trusted network: set the target's settings.VCENTER.verifyCertificate to false (the certificate is still pinned).",
    ],
    confidence: 'HIGH',
  },
  CERTIFICATE_CHANGED: {
    summary: "The vCenter's certificate differs from the one pinned at first contact: the service did not log in.",
    causes: [
      "The vCenter's certificate was renewed or replaced (a new VMCA certificate, an upgrade, a rebuild).",
      'Something between the worker and the vCenter intercepts TLS (a proxy, or an attack).',
    ],
    actions: [
      "Compare the new certificate's SHA-256 fingerprint in the error with the one the vCenter shows (vSphere Client, Certificate Management).",
      'If the change is expected, delete the pinned certificate of that address and port (tls_certificate_pins) and scan again.',
      'If it is not expected, treat it as a security incident.',
    ],
    confidence: 'HIGH',
  },
  NOT_A_VCENTER: {
    summary: 'The address answered HTTPS, but not the vSphere Web Services API.',
    causes: [
      'The address is another web server, or an ESXi host or appliance page without the SDK at that path.',
      "The target's VCENTER port or the credential's baseUrl path is not the vCenter's SDK (https://VCENTER/sdk).",
    ],
    actions: [
      'Open https://ADDRESS/sdk/vimServiceVersions.xml: a vCenter answers with its API versions.',
      "Correct the target's VCENTER port, or the credential's baseUrl.",
    ],
    confidence: 'MEDIUM',
  },
  VCENTER_API_ERROR: {
    summary: 'The vCenter answered a call with a fault, so its inventory could not be read in full.',
    causes: [
      'The account lacks a privilege for some objects (NoPermission).',
      'The vCenter service is starting, overloaded or failing (a ServerFault).',
    ],
    actions: [
      "Read the fault's name in the error message; give the account the read-only role on the root, propagated.",
      "Check the vCenter's health (VAMI, https://VCENTER:5480) and scan again.",
    ],
    confidence: 'MEDIUM',
  },
  VCENTER_PROTOCOL_ERROR: {
    summary: 'The TLS handshake or the HTTP exchange with the vCenter failed.',
    causes: [
      'The port speaks no TLS (plain HTTP), or no TLS version or cipher is shared.',
      'A proxy or load balancer cut the connection.',
    ],
    actions: [
      'Check the port with openssl s_client -connect ADDRESS:PORT from the worker host.',
      "Set the target's VCENTER port to the vCenter's HTTPS port (443).",
    ],
    confidence: 'MEDIUM',
  },
  VCENTER_READ_INCOMPLETE: {
    summary: 'The vCenter could not read some properties of some objects: what was read is kept, nothing was retired.',
    causes: [
      'Hosts were disconnected or not responding, so the vCenter could not give their details.',
      'The account may not read some objects.',
    ],
    actions: [
      'Check in the vSphere Client for disconnected hosts and for objects the account cannot see.',
      'Scan again once the hosts are connected.',
    ],
    confidence: 'MEDIUM',
  },
  LIBVIRT_NOT_INSTALLED: {
    summary: 'The host was expected to be a libvirt host, but it has no virsh: its domains were not read.',
    causes: [
      'libvirt-clients (virsh) is not installed, or not on the PATH of the scan account.',
      'The host is no longer a hypervisor.',
    ],
    actions: [
      'Run command -v virsh on the host as the scan account.',
      'Install libvirt-clients on the host (apt-get install libvirt-clients), or take LIBVIRT off the target.',
    ],
    confidence: 'HIGH',
  },
  LIBVIRT_UNREACHABLE: {
    summary: "virsh on the host could not connect to the target's libvirt URI: its domains were not read.",
    causes: [
      'libvirtd (or virtqemud) is not running on the host.',
      'The scan account may not open the read-only socket (/var/run/libvirt/libvirt-sock-ro).',
      "The target's settings.LIBVIRT.uri names another driver or host than the one there.",
    ],
    actions: [
      'Run virsh -r -c URI uri on the host as the scan account; read its error.',
      'Start libvirtd, or give the account access to the read-only socket (unix_sock_ro_perms).',
      "Correct the target's settings.LIBVIRT.uri (qemu:///system by default).",
    ],
    confidence: 'MEDIUM',
  },
  LIBVIRT_READ_INCOMPLETE: {
    summary: 'Part of the libvirt host could not be read: what was read is kept, nothing was retired.',
    causes: [
      'A domain, network or pool went away while it was being read.',
      'libvirtd stopped or was restarted during the read.',
    ],
    actions: [
      'Scan again: a domain that went away is then simply gone.',
      'If it persists, run virsh -r list --all on the host as the scan account and read its errors.',
    ],
    confidence: 'MEDIUM',
  },
  CONTAINER_RUNTIME_NOT_INSTALLED: {
    summary: 'The host was expected to run containers, but it has neither docker nor podman: none were read.',
    causes: [
      'docker or podman is not installed, or not on the PATH of the scan account.',
      'The host no longer runs containers.',
    ],
    actions: [
      'Run command -v docker podman on the host as the scan account.',
      'Take CONTAINERS off the target if the host runs no containers.',
    ],
    confidence: 'HIGH',
  },
  CONTAINER_RUNTIME_UNREACHABLE: {
    summary: 'docker or podman on the host could not list its containers: none were read.',
    causes: [
      'The Docker daemon is not running (docker.service stopped).',
      "The scan account may not use the runtime: not in the docker group, and no sudo for ps and inspect.",
    ],
    actions: [
      'Run docker ps (or sudo -n podman ps) on the host as the scan account and read its error.',
      'Add the account to the docker group, or allow it sudo for "docker ps *" and "docker inspect *" (podman alike).',
    ],
    confidence: 'MEDIUM',
  },
  CONTAINER_READ_INCOMPLETE: {
    summary: 'The containers of the host could not be inspected in full: what was read is kept, nothing was retired.',
    causes: [
      'A container was removed between the listing and the inspect.',
      'The output was larger than service.discovery.output-max-bytes, or the command timed out.',
    ],
    actions: [
      'Scan again: a container that went away is then simply gone.',
      'If it persists, raise service.discovery.output-max-bytes or service.discovery.command-timeout-ms.',
    ],
    confidence: 'MEDIUM',
  },
  CREDENTIAL_UNREADABLE: {
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
  SNMP_TABLE_TRUNCATED: {
    summary: 'An SNMP table had more rows than the per-table limit; the rows read are kept and nothing in that scope was retired.',
    causes: ['The device is large (a core switch with a big forwarding table, many interfaces).', 'The agent repeats rows (a faulty agent that never ends a walk).'],
    actions: ['Raise service.discovery.snmp-max-rows if the device is merely large.', "Check the agent's firmware if the table cannot be that large."],
    confidence: 'MEDIUM',
  },
  WORKER_LOST: {
    summary: 'The worker running the scan stopped reporting (crashed, killed or restarted); the run was failed when its lease expired.',
    causes: [
      'The worker process was restarted or killed (a deployment, the out-of-memory killer).',
      'The worker lost its connection to PostgreSQL and could not renew the lease.',
    ],
    actions: [
      "Look in the worker's log and the host's system log around the run's time for a restart or an out-of-memory kill.",
      'Run the scan again.',
      'If memory ran out, lower service.discovery.concurrency.',
    ],
    confidence: 'MEDIUM',
  },
  INTERNAL_ERROR: {
    summary: 'The scan stopped on an unexpected error in the service.',
    causes: ["A defect of the service, triggered by this target's data.", 'A store of the service was briefly unavailable.'],
    actions: ["Look in the service log for the run's id.", 'Run the scan again; report the defect with the log if it happens again.'],
    confidence: 'LOW',
  },
};

const RANK: Record<Confidence, number> = { LOW: 0, MEDIUM: 1, HIGH: 2 };

/** A code written by a newer worker than this process (during an upgrade). */
function unknownCode(code: string): Rule {
  return {
    summary: `The run has errors with the code ${code}, which this version of the service has no rule for.`,
    causes: ['A worker of a newer version recorded the error.'],
    actions: ["Read the run's error records.", 'Run the same version on every process of the service.'],
    confidence: 'LOW',
  };
}

function noRecords(failureReason: string | null): DiagnosisAnswer {
  return {
    summary: `The run failed without error records. Its failure reason: ${failureReason ?? 'none was recorded.'}`,
    likelyCauses: ['The target was deleted or changed before the run started.', 'An unexpected error stopped the run before it recorded errors.'],
    recommendedActions: ["Check that the target still exists, and read the service log around the run's time.", 'Run the scan again.'],
    confidence: 'LOW',
  };
}

export class RulesProvider implements DiagnosisProvider {
  readonly model = RULES_MODEL;

  async diagnose({ errorCounts, run }: DiagnosisContext): Promise<DiagnosisAnswer> {
    const codes = Object.keys(errorCounts);
    if (codes.length === 0) return noRecords(run.failureReason);
    // The most frequent code leads; the others add their causes and actions after its own.
    const rules = codes.map((code) => RULES[code as ScanErrorCode] ?? unknownCode(code));
    const lead = rules[0] as Rule;
    const counts = codes.map((code) => `${errorCounts[code]} × ${code}`).join(', ');
    return {
      summary: `${lead.summary} Error records: ${counts}.`,
      likelyCauses: [...new Set(rules.flatMap((r) => r.causes))],
      recommendedActions: [...new Set(rules.flatMap((r) => r.actions))],
      // Several kinds of failure at once make any one explanation less certain.
      confidence: rules.length > 1 && RANK[lead.confidence] > RANK.MEDIUM ? 'MEDIUM' : lead.confidence,
    };
  }
}
