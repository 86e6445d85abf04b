// The scan error codes of DHCP discovery (ISC Kea's control agent): each one's meaning and the
// diagnosis rule that explains a failed run it leads (scan-error.ts). Codes keep their meaning once
// released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const DHCP_ERRORS = {
  DHCP_AUTH_FAILED: {
    description: "Kea's control agent refused the request (HTTP 401 or 403): no HTTP_BASIC credential offered was accepted, or none was offered where it asks for one.",
    explanation: {
      summary: "The DHCP server's control agent refused the user and password offered: the scan loaded no leases.",
      causes: [
        "The credential's user or password is not one of the agent's authentication clients (kea-ctrl-agent.conf: authentication.clients).",
        'The agent asks for basic authentication and the target offers no HTTP_BASIC credential.',
      ],
      actions: [
        'Try the request from the worker host: curl -u USER:PASSWORD -d \'{"command": "lease4-get-page", "service": ["dhcp4"], "arguments": {"from": "start", "limit": 1}}\' http://SERVER:8000/',
        "Give the target an HTTP_BASIC credential with a user and password the agent knows.",
      ],
      confidence: 'HIGH',
    },
  },
  DHCP_COMMAND_UNSUPPORTED: {
    description: "The DHCPv4 server does not know lease4-get-page (Kea's lease_cmds hook library is not loaded).",
    explanation: {
      summary: "The DHCP server answered that it does not support the lease commands: the scan loaded no leases.",
      causes: [
        'kea-dhcp4 runs without the lease_cmds hook library (libdhcp_lease_cmds.so), which serves lease4-get-page.',
        "The agent forwards to a server of another kind (the target's address is a DHCPv6 or another Kea daemon's agent).",
      ],
      actions: [
        'Add the hook library to kea-dhcp4.conf: "hooks-libraries": [{ "library": "/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_lease_cmds.so" }], and reload the server.',
        'Check with the agent which commands the server knows: {"command": "list-commands", "service": ["dhcp4"]}.',
      ],
      confidence: 'HIGH',
    },
  },
  DHCP_API_ERROR: {
    description: "Kea's control agent or the DHCPv4 server behind it answered a command with an error (the agent cannot reach the server, or the server failed the command).",
    explanation: {
      summary: 'The DHCP server answered the lease read with an error: the scan loaded no leases.',
      causes: [
        "kea-ctrl-agent cannot forward the command to kea-dhcp4 (the server is down, or the agent's control-sockets.dhcp4 names another socket).",
        'The server failed the command (its lease database is unavailable).',
        "The port answers HTTP with a status other than 200: another service than Kea's control agent.",
      ],
      actions: [
        'Look at the error text of the run, and at the logs of kea-ctrl-agent and kea-dhcp4.',
        'Check that kea-dhcp4 is running and that its control-socket is the one the agent names.',
        "Correct the target's DHCP port (the agent's http-port, 8000 by default).",
      ],
      confidence: 'MEDIUM',
    },
  },
  DHCP_MALFORMED_ANSWER: {
    description: 'The answer is not what Kea sends (not JSON, not a list of results, a lease list of the wrong shape, more octets than the limit, or pages that do not advance); the scan loads no leases.',
    explanation: {
      summary: "The address answered the lease read with something that is not a Kea control agent's answer: the scan loaded no leases.",
      causes: ["The target's DHCP port is another HTTP service than Kea's control agent.", 'A proxy or middlebox alters the answers.'],
      actions: ["Try the request with curl from the worker host and look at the answer.", "Correct the target's DHCP port."],
      confidence: 'MEDIUM',
    },
  },
  DHCP_READ_INCOMPLETE: {
    description: 'The lease read stopped before its end (a page failed after the first); the scan loads no leases, and changes none.',
    explanation: {
      summary: 'The lease read stopped part-way: the scan loaded no leases, and the assets keep those of the last complete read.',
      causes: ['The DHCP server or its control agent restarted or failed during the read.', 'The network dropped the connection.'],
      actions: ['Scan the target again once the server is stable.', "Raise the target's settings.DHCP.timeoutMs for a slow server.", 'Look at the logs of kea-ctrl-agent and kea-dhcp4 for a restart at the time of the run.'],
      confidence: 'MEDIUM',
    },
  },
  DHCP_LEASES_TRUNCATED: {
    description: 'The server holds more leases than settings.DHCP.maxLeases; the scan loads no leases, and changes none.',
    explanation: {
      summary: 'The DHCP server holds more leases than the limit of the target: the scan loaded no leases, and the assets keep those of the last complete read.',
      causes: [
        'The lease database has more leases (active, expired and declined together) than settings.DHCP.maxLeases.',
        'Expired leases are kept long after they end (expired-leases-processing: hold-reclaimed-time in kea-dhcp4.conf).',
      ],
      actions: ["Raise the target's settings.DHCP.maxLeases (up to 1,000,000).", 'Shorten hold-reclaimed-time on the server, so that fewer expired leases are kept.'],
      confidence: 'HIGH',
    },
  },
  DHCP_LEASE_INVALID: {
    description: 'Leases whose fields do not validate (address, MAC, host name, times) were left out; the other leases are loaded.',
    explanation: {
      summary: 'Some leases of the DHCP server have fields that are not valid: those leases were left out, the others were loaded.',
      causes: ['A client sent a host name with characters or lengths that no DNS name has.', 'A lease has a hardware address that is not a 6-octet MAC (another link type), or times out of range.'],
      actions: ["Look at the leases the run's error names (lease4-get on the server).", "Restrict host names on the server (hostname-char-set and hostname-char-replacement in kea-dhcp4.conf)."],
      confidence: 'MEDIUM',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type DhcpErrorCode = SharedErrorCode | keyof typeof DHCP_ERRORS;
