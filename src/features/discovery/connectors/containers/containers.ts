// CONTAINERS: the Docker or Podman containers of a host, read over SSH (the SSH connector's login,
// host key pinning and limits) with docker or podman ps and inspect. A host without either is no
// error unless it was expected to have one; a read cut short loads what was read and retires nothing.
import type { ConnectorResult } from '../../host-observation.js';
import { cleanText } from '../../untrusted-text.js';
import type { InventoryConnector } from '../connector.js';
import { readEstateOverSsh } from '../ssh/ssh-estate.js';
import { containerScript } from './container-commands.js';
import { CONTAINER_ERRORS, type ContainerErrorCode } from './container-errors.js';
import { CONTAINER_SECTIONS, toContainerEstate } from './container-estate.js';

export const containersConnector = {
  method: 'CONTAINERS',
  stage: 'inventory',
  enabledByDefault: false,
  // Below SSH and imports: it tells only that the host runs containers, never what the host is.
  factRank: 15,
  description: "A host's Docker or Podman containers (image, state, ports, labels, main process), with docker or podman ps and inspect over SSH.",
  credentialKinds: ['SSH_KEY', 'SSH_PASSWORD'],
  defaultPort: 22,
  errors: CONTAINER_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: ['CONNECTION_REFUSED', 'CONTAINER_RUNTIME_NOT_INSTALLED'],
  retires: ['estate'],
  collect: (request, environment): Promise<ConnectorResult> => {
    const script = containerScript();
    return readEstateOverSsh<ContainerErrorCode>(request, environment, {
      method: 'CONTAINERS',
      name: 'containers',
      script,
      sectionNames: CONTAINER_SECTIONS,
      answered: 'inspect',
      codes: { absent: 'CONTAINER_RUNTIME_NOT_INSTALLED', unreachable: 'CONTAINER_RUNTIME_UNREACHABLE', incomplete: 'CONTAINER_READ_INCOMPLETE' },
      messages: {
        absent: `Neither docker nor podman is installed on ${request.address}: it was not read as a container host.`,
        unreachable: (parts) => `${cleanText(parts.get('runtime'), 100) ?? 'The runtime'} could not list the containers: ${cleanText(parts.get('unreachable'), 300) ?? 'no reason given'}`,
        incomplete: 'The containers could not be inspected in full; what was read is kept, nothing is retired.',
      },
      toEstate: (output) => toContainerEstate(output, script.mark, request.address, `CONTAINERS:${request.address}:${request.port}`),
    });
  },
} as const satisfies InventoryConnector<typeof CONTAINER_ERRORS>;
