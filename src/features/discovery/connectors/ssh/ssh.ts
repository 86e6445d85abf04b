// SSH on the registry: a Linux host's inventory over SSH (ssh-connector.ts), its credential kinds and its error codes.
import type { AppConfig } from '../../../../platform/config.js';
import { collectSsh, type SshOptions } from './ssh-connector.js';
import { SSH_ERRORS } from './ssh-errors.js';
import type { InventoryConnector } from '../connector.js';

/** The SSH limits of the service's settings, for every connector that works over SSH. */
export const sshOptions = (config: AppConfig, port: number, deadline: number): SshOptions => ({
  port,
  connectTimeoutMs: config.discoverySshLoginTimeoutMs,
  commandTimeoutMs: config.discoveryCommandTimeoutMs,
  outputMaxBytes: config.discoveryOutputMaxBytes,
  deadline,
});

export const sshConnector = {
  method: 'SSH',
  stage: 'inventory',
  enabledByDefault: true,
  factRank: 50,
  description: "A host's facts, packages, processes, services, interfaces, LLDP neighbours and connections over SSH.",
  credentialKinds: ['SSH_KEY', 'SSH_PASSWORD'],
  defaultPort: 22,
  errors: SSH_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: ['CONNECTION_REFUSED'],
  retires: ['software', 'services', 'connections', 'processes'],
  collect: ({ address, credentials, port, deadline }, { config, hostState }) => collectSsh(address, credentials, sshOptions(config, port, deadline), hostState),
} as const satisfies InventoryConnector<typeof SSH_ERRORS>;
