// The scan error codes of libvirt discovery: each one's meaning and the diagnosis rule that explains
// a failed run it leads (scan-error.ts). Codes keep their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const LIBVIRT_ERRORS = {
  LIBVIRT_NOT_INSTALLED: {
    description: 'The host has no virsh (libvirt-clients): it was not read as a libvirt host.',
    explanation: {
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
  },
  LIBVIRT_UNREACHABLE: {
    description: "virsh could not connect to the target's libvirt URI (libvirtd not running, no read-only socket, a wrong URI).",
    explanation: {
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
  },
  LIBVIRT_READ_INCOMPLETE: {
    description: 'A libvirt listing or object could not be read; what was read is kept, nothing is retired.',
    explanation: {
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
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type LibvirtErrorCode = SharedErrorCode | keyof typeof LIBVIRT_ERRORS;
