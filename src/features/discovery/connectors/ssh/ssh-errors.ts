// The scan error codes of SSH discovery: each one's meaning and the diagnosis rule that explains
// a failed run it leads (scan-error.ts). Codes keep their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const SSH_ERRORS = {
  SSH_AUTH_FAILED: {
    description: 'The SSH server refused every credential offered.',
    explanation: {
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
  },
  HOST_KEY_CHANGED: {
    description: 'The SSH host key differs from the one pinned at first contact; no credential was sent and the host was not inventoried.',
    explanation: {
      summary: 'A host presented another SSH host key than the one pinned at first contact; no credential was sent to it and it was not inventoried, as a guard against a man-in-the-middle.',
      causes: [
        'The host was reinstalled or its host keys were regenerated.',
        'The address now belongs to another machine (re-addressing, DHCP).',
        'Someone intercepts the connection (man-in-the-middle).',
      ],
      actions: [
        "Confirm with the host's owner that the key change is expected, comparing fingerprints (ssh-keygen -lf on the host).",
        'If it is expected, accept the new key (POST /api/v1/discovery/pins/accept with the fingerprint of the error) so that the next scan logs in.',
        'If it is not expected, treat it as a security incident and keep the host out of scans.',
      ],
      confidence: 'HIGH',
    },
  },
  SSH_PROTOCOL_ERROR: {
    description: 'The SSH handshake failed (not an SSH server, or no common algorithm).',
    explanation: {
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
  },
  COMMAND_PERMISSION_DENIED: {
    description: 'An inventory command was refused for lack of permission; its data is missing.',
    explanation: {
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
  },
  COMMAND_TIMEOUT: {
    description: 'An inventory command did not finish within its time limit; its data is missing.',
    explanation: {
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
  },
  COMMAND_FAILED: {
    description: 'An inventory command failed or is not installed; its data is missing.',
    explanation: {
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
  },
  LLDP_UNREADABLE: {
    description: 'lldpd runs on the host but its control socket could not be found or read; its neighbours are missing.',
    explanation: {
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
  },
  OUTPUT_LIMIT_EXCEEDED: {
    description: 'An inventory command printed more than the output limit; its data is left incomplete.',
    explanation: {
      summary: 'An inventory command printed more than the output limit, so its part of the host\'s data is incomplete and was not retired.',
      causes: ['The host is unusually large (many packages, processes or connections).', 'A command printed far more than usual (a runaway process list, a flood of sockets).'],
      actions: ['Raise service.discovery.output-max-bytes if the host is merely large.', 'Look at the host for the runaway processes or connections.'],
      confidence: 'HIGH',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type SshErrorCode = SharedErrorCode | keyof typeof SSH_ERRORS;
