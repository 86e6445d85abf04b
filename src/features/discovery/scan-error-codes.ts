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
  CREDENTIAL_UNREADABLE: 'A credential could not be decrypted with the configured vault keys.',
  WORKER_LOST: 'The worker running the scan stopped reporting (crashed or killed); its lease expired.',
  INTERNAL_ERROR: 'The scan stopped on an unexpected error in the service.',
} as const;

export type ScanErrorCode = keyof typeof SCAN_ERROR_CODES;
