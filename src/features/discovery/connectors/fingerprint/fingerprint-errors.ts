// The scan error codes of credential-free fingerprinting (nmap): each one's meaning and the
// diagnosis rule that explains a failed run it leads (scan-error.ts). Codes keep their meaning once
// released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const FINGERPRINT_ERRORS = {
  NMAP_NOT_INSTALLED: {
    description: 'nmap could not be run on the worker (service.discovery.nmap-path names no program there): no address was fingerprinted.',
    explanation: {
      summary: 'The worker has no nmap to fingerprint with: the scan named no services and classified no device.',
      causes: ["Debian's nmap package is not installed on the worker host.", 'service.discovery.nmap-path names a program that is not there, or that the service may not run.'],
      actions: ['Install nmap on every worker host (apt-get install nmap).', 'Correct service.discovery.nmap-path (nmap on the PATH by default).'],
      confidence: 'HIGH',
    },
  },
  FINGERPRINT_TIMEOUT: {
    description: "nmap did not finish with the address within settings.FINGERPRINT.timeoutMs (or the host's time-out): the partial report is dropped, nothing is changed or retired.",
    explanation: {
      summary: 'Fingerprinting some addresses took longer than allowed: what nmap had found there was dropped, and those assets keep what the last complete fingerprint said.',
      causes: [
        'A firewall drops the probes to many ports, so that nmap waits for each.',
        'Services that answer slowly make each version probe wait its full time.',
        'Too many ports or a high version intensity for the time allowed.',
      ],
      actions: ["Raise the target's settings.FINGERPRINT.timeoutMs.", 'Probe fewer ports (settings.FINGERPRINT.ports or topPorts) or lower settings.FINGERPRINT.intensity.'],
      confidence: 'MEDIUM',
    },
  },
  FINGERPRINT_OUTPUT_TOO_LARGE: {
    description: "nmap's report of an address was larger than the limit (4 MiB, nmap then stopped: nothing is loaded) or named more open ports than kept (256: the first are loaded, nothing is retired).",
    explanation: {
      summary: 'An address answered on so many ports that its report passed the limit: its fingerprint is incomplete, and nothing of it was retired.',
      causes: [
        'A device that accepts connections on every port (a tarpit, a proxy, some firewalls) makes every port look open.',
        'A host that really serves hundreds of ports, probed with a long port list (settings.FINGERPRINT.topPorts).',
      ],
      actions: ['Probe fewer ports at that address (settings.FINGERPRINT.ports).', 'Leave an address that answers on every port out of the target.'],
      confidence: 'MEDIUM',
    },
  },
  FINGERPRINT_FAILED: {
    description: 'nmap ended with an error or a report that is not its XML; the address was not fingerprinted.',
    explanation: {
      summary: 'nmap failed at some addresses: they were not fingerprinted.',
      causes: ['nmap refused its arguments or lacked a privilege (a raw scan without root).', "nmap's data files are missing or damaged."],
      actions: ["Look at the run's error text (nmap's last words).", 'Try the same nmap command on the worker host (nmap -sV -p 22 ADDRESS), and reinstall nmap if it fails there too.'],
      confidence: 'MEDIUM',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type FingerprintErrorCode = SharedErrorCode | keyof typeof FINGERPRINT_ERRORS;
