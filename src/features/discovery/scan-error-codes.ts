// The stable codes of discovery's error records (discovery_run_errors.code). They are what people,
// alerts and the diagnosis rules key on, so a code keeps its meaning once released.
export const SCAN_ERROR_CODES = {
  DNS_FAILURE: 'A target name does not resolve to an address.',
  HOST_UNREACHABLE: 'The network reports no route to the address (host down or filtered by a router).',
  CONNECTION_REFUSED: 'The address answered but refused the connection: nothing listens on the port.',
  CONNECTION_TIMEOUT: 'Nothing answered on the port within the connect time-out.',
  NO_CREDENTIALS: 'No credential of the right kind is listed on the target or matches the address.',
  SSH_AUTH_FAILED: 'The SSH server refused every credential offered.',
  HOST_KEY_CHANGED: 'The SSH host key differs from the one pinned at first contact; the host was not inventoried.',
  SSH_PROTOCOL_ERROR: 'The SSH handshake failed (not an SSH server, or no common algorithm).',
  COMMAND_PERMISSION_DENIED: 'An inventory command was refused for lack of permission; its data is missing.',
  COMMAND_TIMEOUT: 'An inventory command did not finish within its time limit; its data is missing.',
  COMMAND_FAILED: 'An inventory command failed or is not installed; its data is missing.',
  LLDP_UNREADABLE: 'lldpd runs on the host but its control socket could not be found or read; its neighbours are missing.',
  OUTPUT_LIMIT_EXCEEDED: 'An inventory command printed more than the output limit; its data is left incomplete.',
  HOST_TIMEOUT: 'The host did not finish within the per-host time-out; what it gave is kept, nothing is retired.',
  SNMP_NO_ANSWER: 'The SNMP agent did not answer (down, filtered, or a wrong v2c community).',
  SNMP_AUTH_FAILED: 'The SNMP v3 agent refused the user, authentication or privacy settings.',
  SNMP_ERROR: 'The SNMP agent answered with an error.',
  SNMP_TABLE_TRUNCATED: 'An SNMP table had more rows than the per-table limit; the rows read are kept, nothing in its scope is retired.',
  VCENTER_AUTH_FAILED: 'The vCenter refused every credential offered (InvalidLogin).',
  CERTIFICATE_UNTRUSTED: 'The server certificate is not signed by a trusted authority or does not name the address; nothing was sent.',
  CERTIFICATE_CHANGED: 'The server certificate differs from the one pinned at first contact; nothing was sent.',
  NOT_A_VCENTER: 'The address answered HTTPS but not the vSphere Web Services API (no SOAP answer at the SDK path).',
  VCENTER_API_ERROR: 'The vCenter answered a call with a fault other than a refused login.',
  VCENTER_PROTOCOL_ERROR: 'The TLS handshake or the HTTP exchange with the vCenter failed.',
  VCENTER_READ_INCOMPLETE: 'The vCenter could not read some properties of some objects; what was read is kept, nothing is retired.',
  LIBVIRT_NOT_INSTALLED: 'The host has no virsh (libvirt-clients): it was not read as a libvirt host.',
  LIBVIRT_UNREACHABLE: "virsh could not connect to the target's libvirt URI (libvirtd not running, no read-only socket, a wrong URI).",
  LIBVIRT_READ_INCOMPLETE: 'A libvirt listing or object could not be read; what was read is kept, nothing is retired.',
  CONTAINER_RUNTIME_NOT_INSTALLED: 'The host has neither docker nor podman: it was not read as a container host.',
  CONTAINER_RUNTIME_UNREACHABLE: 'docker or podman could not list the containers (the daemon is not running, or the account may not use it).',
  CONTAINER_READ_INCOMPLETE: 'The containers could not be inspected in full; what was read is kept, nothing is retired.',
  CREDENTIAL_UNREADABLE: 'A credential could not be decrypted with the configured vault keys.',
  WORKER_LOST: 'The worker running the scan stopped reporting (crashed or killed); its lease expired.',
  INTERNAL_ERROR: 'The scan stopped on an unexpected error in the service.',
} as const;

export type ScanErrorCode = keyof typeof SCAN_ERROR_CODES;

/** The code of a socket error (its errno name) that says the address could not be reached, if it is one. */
export function networkErrorCode(errno: string | undefined): ScanErrorCode | undefined {
  return errno === undefined ? undefined : NETWORK_CODES[errno];
}

const NETWORK_CODES: Record<string, ScanErrorCode> = {
  ECONNREFUSED: 'CONNECTION_REFUSED',
  ETIMEDOUT: 'CONNECTION_TIMEOUT',
  EHOSTUNREACH: 'HOST_UNREACHABLE',
  ENETUNREACH: 'HOST_UNREACHABLE',
  EHOSTDOWN: 'HOST_UNREACHABLE',
  ENOTFOUND: 'DNS_FAILURE',
  EAI_AGAIN: 'DNS_FAILURE',
};
