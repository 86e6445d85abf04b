// SNMP on the registry: v2c and v3 agents (snmp-connector.ts), their credential kinds and error codes.
import { collectSnmp } from './snmp-connector.js';
import { SNMP_ERRORS } from './snmp-errors.js';
import type { SnmpCredential } from './snmp-session.js';
import type { InventoryConnector } from '../connector.js';

export const snmpConnector = {
  method: 'SNMP',
  stage: 'inventory',
  enabledByDefault: true,
  factRank: 40,
  description: "A device's system group, interfaces, addresses, LLDP neighbours, bridge forwarding table and entity serial over SNMP v2c or v3.",
  credentialKinds: ['SNMP_V3', 'SNMP_V2C'],
  defaultPort: 161,
  errors: SNMP_ERRORS,
  // UDP: the sweep cannot tell whether an agent listens.
  triedWhere: 'always',
  silentCodes: ['SNMP_NO_ANSWER', 'CONNECTION_REFUSED'],
  retires: [],
  collect: ({ address, credentials, port, deadline }, { config }) =>
    collectSnmp(address, port, credentials as SnmpCredential[], {
      timeoutMs: config.discoverySnmpTimeoutMs,
      retries: config.discoverySnmpRetries,
      maxRows: config.discoverySnmpMaxRows,
      budgetMs: Math.max(0, deadline - Date.now()),
    }),
} as const satisfies InventoryConnector<typeof SNMP_ERRORS>;
