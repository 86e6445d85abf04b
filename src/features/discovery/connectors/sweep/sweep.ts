// SWEEP on the registry: the first stage of every address (sweep-connector.ts does the probing);
// its failures are the shared codes (shared-scan-errors.ts).
import type { ProbeConnector } from '../connector.js';

export const sweepConnector = {
  method: 'SWEEP',
  stage: 'probe',
  enabledByDefault: true,
  factRank: 10,
  description: 'TCP connects to a list of ports (and an ICMP echo): is anything at the address, which ports answer.',
  errors: {},
} as const satisfies ProbeConnector;
