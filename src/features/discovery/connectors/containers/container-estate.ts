// What docker or podman inspect printed on a host (container-commands.ts) as an estate: the host
// (its root, loaded as the host the address stands for) HOSTS_CONTAINER each container, with its
// image, state, ports, labels, networks and the host pid of its main process. A container is known
// by its id (instanceId); its addresses and MACs are attributes, not identity: docker derives a MAC
// from the address, and the same private addresses repeat on every host. Its processes are its main
// process and that one's descendants in the host's process table (host pids, as SSH lists them on
// the host); what `docker exec` or `podman exec` started descends from the runtime, not from the
// container, and is not among them.
import type { EstateAsset, EstateObservation, EstateProcess } from '../../host-observation.js';
import { parseProcesses, sections, type ProcessLine } from '../ssh/linux-parsers.js';
import { cleanText } from '../../untrusted-text.js';

export const HOST_KEY = 'host';
export const CONTAINER_SECTIONS = /^[a-z]+$/;

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const str = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? cleanText(String(value)) : undefined);

/** "127.0.0.1:18081->8080/tcp", or "8080/tcp" when not published, sorted. */
function ports(value: unknown): string {
  return Object.entries(obj(value)).flatMap(([port, bindings]) => {
    const published = (Array.isArray(bindings) ? bindings : []).map(obj).map((b) => `${str(b.HostIp) || '0.0.0.0'}:${str(b.HostPort) ?? ''}->${port}`);
    return published.length ? published : [port];
  }).map((p) => cleanText(p) ?? '').filter(Boolean).sort().join(',');
}

/** The runtime and its version from `docker --version` ("Docker version 28.2.2, build e6534b4") or `podman --version`. */
function runtimeOf(text: string | undefined): { runtime?: string; version?: string } {
  const m = /^(docker|podman)\s+version\s+([^\s,]+)/i.exec(text?.trim() ?? '');
  return m ? { runtime: (m[1] as string).toLowerCase(), version: m[2] } : {};
}

/** The processes of each container (by its asset key): its main process and all that descend from it. */
function containerProcesses(containers: EstateAsset[], processesPart: string, namesPart: string): EstateProcess[] {
  const processes = parseProcesses(processesPart, namesPart);
  const children = new Map<number, number[]>();
  for (const p of processes) if (p.ppid) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  return containers.flatMap((c) => {
    const main = c.attributes.pid;
    if (typeof main !== 'number' || !byPid.has(main)) return [];
    const tree: number[] = [main];
    for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
    return tree.map((pid) => {
      const { unit: _unit, ...p } = byPid.get(pid) as ProcessLine;
      return { ...p, asset: c.key, sourceConnector: 'CONTAINERS' };
    });
  });
}

/** The estate of a host's containers; incomplete unless the inspect answered in full and the script reached its end. */
export function toContainerEstate(output: string, mark: string, address: string, scope: string): EstateObservation {
  const parts = sections(output, mark, CONTAINER_SECTIONS);
  let inspected: unknown[] = [];
  let parsed = false;
  try {
    const value: unknown = JSON.parse(parts.get('inspect') ?? '');
    if (Array.isArray(value)) [inspected, parsed] = [value, true];
  } catch {
    // An inspect cut short: nothing of it is taken, and nothing is retired.
  }
  const { runtime, version } = runtimeOf(parts.get('runtime'));
  const hostname = cleanText(parts.get('hostname')?.split('\n')[0])?.toLowerCase();
  const containers: EstateAsset[] = inspected.map(obj).flatMap((c) => {
    const id = str(c.Id)?.toLowerCase();
    if (!id || !/^[0-9a-f]{12,64}$/.test(id)) return [];
    const state = obj(c.State);
    const config = obj(c.Config);
    const network = obj(c.NetworkSettings);
    const networks = Object.entries(obj(network.Networks)).map(([name, n]) => ({ name, ip: str(obj(n).IPAddress), mac: str(obj(n).MacAddress) }));
    const labels = Object.entries(obj(config.Labels)).map(([k, v]) => `${k}=${str(v) ?? ''}`).sort().join(',');
    const pid = Number(state.Pid);
    const attributes = Object.fromEntries(Object.entries({
      runtime, image: str(c.ImageName) ?? str(config.Image), imageId: str(c.Image), state: str(state.Status), pid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
      startedAt: str(state.StartedAt)?.startsWith('0001-') ? undefined : str(state.StartedAt), createdAt: str(c.Created), ports: ports(network.Ports), labels,
      networks: networks.map((n) => n.name).sort().join(','), containerAddresses: [...new Set([str(network.IPAddress), ...networks.map((n) => n.ip)].filter(Boolean))].join(','),
      containerId: id.slice(0, 12), instanceId: id,
    }).filter(([, v]) => v !== undefined && v !== '')) as EstateAsset['attributes'];
    return [{ key: `container/${id}`, assetType: 'CONTAINER', displayName: str(c.Name)?.replace(/^\//, '') || id.slice(0, 12), macAddresses: [], ipAddresses: [], attributes }];
  });
  const host: EstateAsset = {
    key: HOST_KEY, assetType: 'SERVER', displayName: hostname ?? address, ...(hostname ? { hostname: hostname.split('.')[0] } : {}), macAddresses: [], ipAddresses: [address],
    attributes: { ...(runtime ? { containerRuntime: `${runtime} ${version}` } : {}), containerCount: containers.length },
  };
  containers.sort((a, b) => a.key.localeCompare(b.key));
  const complete = parsed && parts.has('end') && !parts.has('failed');
  const processesPart = parts.get('processes');
  const namesPart = parts.get('names');
  // The containers' process sets are replaced only by a complete read that listed the host's processes.
  const processesRead = complete && processesPart !== undefined && namesPart !== undefined && !parts.has('unread');
  return {
    method: 'CONTAINERS', scope, root: HOST_KEY, rootIsHost: true, assets: [host, ...containers],
    relationships: containers.map((c) => ({ type: 'HOSTS_CONTAINER' as const, source: HOST_KEY, target: c.key })), relationshipTypes: ['HOSTS_CONTAINER'],
    ...(processesRead ? { processes: containerProcesses(containers, processesPart, namesPart) } : {}),
    complete,
  };
}
