// The scan error codes of containers discovery: each one's meaning and the diagnosis rule that explains
// a failed run it leads (scan-error.ts). Codes keep their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const CONTAINER_ERRORS = {
  CONTAINER_RUNTIME_NOT_INSTALLED: {
    description: 'The host has neither docker nor podman: it was not read as a container host.',
    explanation: {
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
  },
  CONTAINER_RUNTIME_UNREACHABLE: {
    description: 'docker or podman could not list the containers (the daemon is not running, or the account may not use it).',
    explanation: {
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
  },
  CONTAINER_READ_INCOMPLETE: {
    description: 'The containers could not be inspected in full; what was read is kept, nothing is retired.',
    explanation: {
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
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type ContainerErrorCode = SharedErrorCode | keyof typeof CONTAINER_ERRORS;
