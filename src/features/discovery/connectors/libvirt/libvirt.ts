// LIBVIRT: a KVM/QEMU (or any libvirt) host's domains, virtual networks and storage pools, read
// with read-only virsh over SSH (the SSH connector's login, host key pinning and limits) on the
// target's connection URI. A host without virsh is no error unless it was expected to have it; a
// read cut short (a listing failed, the time-out, the output limit) loads what was read and
// retires nothing.
import { z } from 'zod';
import type { ConnectorResult } from '../../host-observation.js';
import { cleanText } from '../../untrusted-text.js';
import type { InventoryConnector } from '../connector.js';
import { readEstateOverSsh } from '../ssh/ssh-estate.js';
import { LIBVIRT_ERRORS, type LibvirtErrorCode } from './libvirt-errors.js';
import { DEFAULT_LIBVIRT_URI, LIBVIRT_URI, libvirtScript } from './libvirt-commands.js';
import { SECTION_NAMES, toLibvirtEstate } from './libvirt-estate.js';

const settings = z.strictObject({
  uri: z.string().max(300).regex(LIBVIRT_URI, 'a libvirt connection URI such as qemu:///system').optional(),
});

export const libvirtConnector = {
  method: 'LIBVIRT',
  stage: 'inventory',
  enabledByDefault: false,
  // Above SSH: that a host is a hypervisor is libvirt's word.
  factRank: 55,
  description: "A libvirt host's domains (VMs), virtual networks and storage pools, with read-only virsh over SSH (settings.LIBVIRT.uri, qemu:///system by default).",
  credentialKinds: ['SSH_KEY', 'SSH_PASSWORD'],
  defaultPort: 22,
  settings,
  errors: LIBVIRT_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: ['CONNECTION_REFUSED', 'LIBVIRT_NOT_INSTALLED'],
  retires: ['estate'],
  collect: (request, environment): Promise<ConnectorResult> => {
    const uri = settings.parse(request.settings).uri ?? DEFAULT_LIBVIRT_URI;
    const script = libvirtScript(uri);
    return readEstateOverSsh<LibvirtErrorCode>(request, environment, {
      method: 'LIBVIRT',
      name: 'virsh',
      script,
      sectionNames: SECTION_NAMES,
      answered: 'uri',
      codes: { absent: 'LIBVIRT_NOT_INSTALLED', unreachable: 'LIBVIRT_UNREACHABLE', incomplete: 'LIBVIRT_READ_INCOMPLETE' },
      messages: {
        absent: `virsh is not installed on ${request.address}: it was not read as a libvirt host.`,
        unreachable: (parts) => `virsh could not connect to ${uri}: ${cleanText(parts.get('uri'), 300) ?? 'no reason given'}`,
        incomplete: `A listing or an object of ${uri} could not be read; what was read is kept, nothing is retired.`,
      },
      toEstate: (output) => toLibvirtEstate(output, script.mark, request.address, `LIBVIRT:${request.address}:${request.port}:${uri}`, uri),
    });
  },
} as const satisfies InventoryConnector<typeof LIBVIRT_ERRORS>;
