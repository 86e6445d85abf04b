// The scan error codes of SNMP discovery: each one's meaning and the diagnosis rule that explains
// a failed run it leads (scan-error.ts). Codes keep their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const SNMP_ERRORS = {
  SNMP_NO_ANSWER: {
    description: 'The SNMP agent did not answer (down, filtered, or a wrong v2c community).',
    explanation: {
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
  },
  SNMP_AUTH_FAILED: {
    description: 'The SNMP v3 agent refused the user, authentication or privacy settings.',
    explanation: {
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
  },
  SNMP_ERROR: {
    description: 'The SNMP agent answered with an error.',
    explanation: {
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
  },
  SNMP_TABLE_TRUNCATED: {
    description: 'An SNMP table had more rows than the per-table limit; the rows read are kept, nothing in its scope is retired.',
    explanation: {
      summary: 'An SNMP table had more rows than the per-table limit; the rows read are kept and nothing in that scope was retired.',
      causes: ['The device is large (a core switch with a big forwarding table, many interfaces).', 'The agent repeats rows (a faulty agent that never ends a walk).'],
      actions: ['Raise service.discovery.snmp-max-rows if the device is merely large.', "Check the agent's firmware if the table cannot be that large."],
      confidence: 'MEDIUM',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type SnmpErrorCode = SharedErrorCode | keyof typeof SNMP_ERRORS;
