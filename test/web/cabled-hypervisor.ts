// The demo estate's hypervisor that LLDP saw on its switch, for the tests of what a cable shows.
import type { ApiClient } from '../support/api-client.js';

/** The first hypervisor whose interface is connected to a switch port, and that switch's id. */
export async function cabledHypervisor(api: ApiClient): Promise<{ hypervisor: { id: string; displayName: string }; switchId: string }> {
  for (const h of (await api.get('/api/v1/assets?type=HYPERVISOR&size=100')).body.data as { id: string; displayName: string }[]) {
    const nics = (await api.get(`/api/v1/assets?type=INTERFACE&hostId=${h.id}`)).body.data as { connectedTo?: { assetId: string }[] }[];
    const link = nics.flatMap((n) => n.connectedTo ?? [])[0];
    if (link) return { hypervisor: { id: h.id, displayName: h.displayName }, switchId: link.assetId };
  }
  throw new Error('no hypervisor of the estate is cabled to a switch');
}
