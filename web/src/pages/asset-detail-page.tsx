// One asset: every field with its category label, the parent as a link, the scan fields, the
// lifecycle actions for those allowed (with a confirmation), its relationships, its custom
// attributes, and tabs for what runs on it: packages, processes, services (with their ports) and
// interfaces with what each is connected to (the neighbour asset and port, the evidence, the
// confidence), and its History (components/asset-history). The tabs are the synthesized types the schema serves (GET /schema/asset-types), so a
// new sub-record kind shows as a tab; the views below say how the known ones look. The
// relationships tab lists inactive edges too (marked so) and the asset's cables, each a page at a
// time by the API's links, and reloads after a lifecycle action; a parent whose edge a decommission
// made inactive is still named, as inactive. A printer or any other non-host shows the tabs of the
// kinds it has rows of (the services a fingerprint found on it).
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, query, type Page } from '../api';
import { attributeLabel, attributeValue, customAttributes, isSoftwareCategory, vendorModelLabels } from '../asset-columns';
import { AssetHistory } from '../components/asset-history';
import { Identification } from '../components/identification';
import { ConfirmButton, Pager, States, Table, Tabs, text, useLoad, usePageTitle, when, type Column } from '../components/ui';
import { MAY, useSession } from '../session';
import type { Asset, ConnectedTo, Relationship, SchemaEntry } from '../types';

const RELATIONSHIPS_TAB = { id: 'relationships', label: 'Relationships' };
const HISTORY_TAB = { id: 'history', label: 'History' };


type ParentRule = NonNullable<SchemaEntry['parent']>;

/** The edges by which an asset without an active parent may have had one (its type's parent rule), inactive ones included. */
function useParentEdges(asset: Asset | undefined, rule: ParentRule | undefined, version: number): Relationship[] {
  const orphan = asset && !asset.parent && rule ? asset.id : undefined;
  const edges = useLoad(
    async () => (orphan && rule ? (await api<Page<Relationship>>(`assets/${orphan}/relationships${query({ type: [rule.via, ...rule.viaAlternatives], activeOnly: false, size: 100 })}`)).data : []),
    [orphan, rule, version],
  );
  return orphan ? (edges.data ?? []) : [];
}

/** The asset's parent by its type's rule among its inactive edges (the API names active parents only). */
function inactiveParent(asset: Asset, rule: ParentRule | undefined, rels: Relationship[]): Relationship | undefined {
  if (!rule) return undefined;
  const via = [rule.via, ...rule.viaAlternatives];
  return rels.find((r) => {
    if (r.active || !via.includes(r.relationshipType)) return false;
    const [assetEnd, type] = rule.direction === 'IN' ? [r.targetAssetId, r.sourceAssetType] : [r.sourceAssetId, r.targetAssetType];
    return assetEnd === asset.id && (rule.parentTypes as string[]).includes(type);
  });
}

function ParentValue({ asset, inactive }: { asset: Asset; inactive: Relationship | undefined }) {
  if (asset.parent) return <><Link to={`/assets/${asset.parent.id}`}>{asset.parent.displayName}</Link> <span className="muted">({asset.parent.via})</span></>;
  if (!inactive) return <>—</>;
  const [id, name] = inactive.targetAssetId === asset.id ? [inactive.sourceAssetId, inactive.sourceDisplayName] : [inactive.targetAssetId, inactive.targetDisplayName];
  return <><Link to={`/assets/${id}`}>{name}</Link> <span className="muted">({inactive.relationshipType}, inactive)</span></>;
}

function Fields({ asset, inactiveParentEdge }: { asset: Asset; inactiveParentEdge: Relationship | undefined }) {
  const labels = vendorModelLabels(isSoftwareCategory(asset.assetCategory));
  // Category and Type, as the assets list and its filters name them.
  const rows: [string, React.ReactNode][] = [
    ['Category', `${asset.assetCategoryLabel} (${asset.assetCategory})`],
    ['Type', `${asset.assetSubtypeLabel} (${asset.assetType})`],
    ['Status', <span className={`status ${asset.status.toLowerCase()}`}>{asset.status}</span>],
    ['Parent', <ParentValue asset={asset} inactive={inactiveParentEdge} />],
    ['Virtual', asset.virtual === null ? '—' : asset.virtual ? 'yes' : 'no'],
    ['Host name', text(asset.hostname)],
    ['FQDN', text(asset.fqdn)],
    ['Site', text(asset.site)],
    ['Environment', text(asset.environment)],
    // Software carries its publisher and version in these (docs/interface.md §2.2).
    [labels.vendor, text(asset.vendor)],
    [labels.model, text(asset.model)],
    ['Serial number', text(asset.serialNumber)],
    ['MAC addresses', (asset.macAddresses ?? []).join(', ') || '—'],
    ['IP addresses', (asset.ipAddresses ?? []).join(', ') || '—'],
    ['Last scan outcome', text(asset.lastScanOutcome)],
    ['Last scan', when(asset.lastScanAt)],
    ['Consecutive scan failures', String(asset.consecutiveScanFailures)],
    ['First seen', when(asset.firstSeenAt)],
    ['Last seen', when(asset.lastSeenAt)],
    ['Updated', when(asset.updatedAt)],
    ['Stale since', when(asset.staleSince)],
    ['Decommissioned', when(asset.decommissionedAt)],
    ['Sources', (asset.sources ?? []).join(', ') || '—'],
  ];
  return (
    <dl className="fields">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Rows of the relationships tab a page: an asset can have thousands (a switch, a cluster). */
const RELATIONSHIPS_PAGE = 100;
/** Interfaces whose cables one page of the cables table lists. */
const INTERFACES_PAGE = 500;

/** A table's pages by the API's own links, shown once there is more than one. */
function Pages<T>({ page, label, onFollow }: { page: Page<T>; label: string; onFollow: (link: string) => void }) {
  if (page.total <= page.pageSize) return null;
  return <Pager page={page.page} total={page.total} pageSize={page.pageSize} links={page.links} onFollow={onFollow} label={label} />;
}

function Relationships({ id, version, cabled }: { id: string; version: number; cabled: boolean }) {
  const [link, setLink] = useState<string>();
  // Inactive edges too: a decommissioned asset's are shown as such, not hidden.
  const rels = useLoad(() => api<Page<Relationship>>(link ?? `assets/${id}/relationships${query({ activeOnly: false, size: RELATIONSHIPS_PAGE })}`), [id, link, version]);
  const columns: Column<Relationship>[] = [
    { key: 'type', label: 'Relationship', render: (r) => r.relationshipType },
    { key: 'source', label: 'From', render: (r) => (r.sourceAssetId === id ? 'this asset' : <Link to={`/assets/${r.sourceAssetId}`}>{r.sourceDisplayName}</Link>) },
    { key: 'target', label: 'To', render: (r) => (r.targetAssetId === id ? 'this asset' : <Link to={`/assets/${r.targetAssetId}`}>{r.targetDisplayName}</Link>) },
    { key: 'active', label: 'Active', render: (r) => (r.active ? 'yes' : <span className="status inactive">inactive</span>) },
    { key: 'seen', label: 'Last seen', render: (r) => when(r.lastSeenAt) },
  ];
  return (
    <>
      <States loaded={rels}>
        {(p) => {
          const inactive = p.data.filter((r) => !r.active).length;
          if (p.data.length === 0) return <p className="muted">No relationships.</p>;
          const paged = p.total > p.pageSize;
          return (
            <>
              <Table rows={p.data} columns={columns} rowKey={(r) => r.id}
                caption={`${p.total.toLocaleString()} relationships${inactive ? `, ${inactive} inactive${paged ? ' on this page' : ''}` : ''}`} />
              <Pages page={p} label="Pages of relationships" onFollow={setLink} />
            </>
          );
        }}
      </States>
      {cabled && <Cables hostId={id} />}
    </>
  );
}

interface Cable extends ConnectedTo {
  localPort: string;
}

/** The asset's cables: each port of its interfaces and what the far end is (LLDP/CDP, FDB), read from its INTERFACE rows a page at a time. */
function Cables({ hostId }: { hostId: string }) {
  const [link, setLink] = useState<string>();
  const interfaces = useLoad(() => api<Page<Asset>>(link ?? `assets${query({ type: 'INTERFACE', hostId, size: INTERFACES_PAGE })}`), [hostId, link]);
  const p = interfaces.data;
  const cables = (p?.data ?? []).flatMap((i) => (i.connectedTo ?? []).map((c): Cable => ({ ...c, localPort: i.displayName })));
  if (!p || (cables.length === 0 && p.total <= p.pageSize)) return null;
  const first = p.page * p.pageSize;
  return (
    <>
      <Table
        rows={cables}
        rowKey={(c) => `${c.localPort} ${c.interfaceId} ${c.discoveredVia}`}
        caption={`${cables.length.toLocaleString()} cables (port-to-port links)${p.total > p.pageSize ? ` of interfaces ${(first + 1).toLocaleString()}–${(first + p.data.length).toLocaleString()} of ${p.total.toLocaleString()}` : ''}`}
        columns={[
          { key: 'port', label: 'Port', render: (c) => c.localPort },
          { key: 'asset', label: 'Connected to', render: (c) => <Link to={`/assets/${c.assetId}`}>{c.assetDisplayName ?? c.assetId}</Link> },
          { key: 'far', label: 'Their port', render: (c) => c.port },
          { key: 'via', label: 'Found by', render: (c) => `${c.discoveredVia}, ${c.confidence.toFixed(2)}` },
        ]}
      />
      <Pages page={p} label="Pages of interfaces" onFollow={setLink} />
    </>
  );
}

interface SubRecordView {
  label: string;
  columns: Column<Asset>[];
}

/** A kind without a view of its own: its schema label, and its rows by name. */
const plainView = (entry: SchemaEntry): SubRecordView => ({ label: entry.label, columns: [{ key: 'name', label: 'Name', render: (r) => r.displayName }] });

const SUB_VIEWS: Partial<Record<string, SubRecordView>> = {
  SOFTWARE_PACKAGE: { label: 'Installed software', columns: [
    { key: 'name', label: 'Package', render: (r) => r.displayName },
    { key: 'version', label: 'Version', render: (r) => text(r.model) },
    { key: 'publisher', label: 'Publisher', render: (r) => text(r.vendor) },
    { key: 'manager', label: 'Manager', render: (r) => text(customAttributes(r).package_manager) },
    { key: 'installed', label: 'Installed', render: (r) => text(customAttributes(r).install_date) },
  ] },
  RUNNING_PROCESS: { label: 'Processes', columns: [
    { key: 'pid', label: 'PID', render: (r) => text(customAttributes(r).pid) },
    { key: 'name', label: 'Process', render: (r) => r.displayName },
    { key: 'user', label: 'User', render: (r) => text(customAttributes(r).username) },
    { key: 'cmd', label: 'Command line', render: (r) => <code className="wrap">{text(customAttributes(r).command_line)}</code> },
    { key: 'mem', label: 'Memory (KB)', render: (r) => text(customAttributes(r).memory_kb) },
  ] },
  DISCOVERED_SERVICE: { label: 'Services', columns: [
    { key: 'name', label: 'Service', render: (r) => r.displayName },
    { key: 'display', label: 'Description', render: (r) => text(customAttributes(r).display_name) },
    { key: 'state', label: 'State', render: (r) => text(customAttributes(r).state) },
    { key: 'start', label: 'Start mode', render: (r) => text(customAttributes(r).start_mode) },
    {
      key: 'ports',
      label: 'Listen ports',
      render: (r) => ((customAttributes(r).listen_ports as { protocol: string; port: number }[] | undefined) ?? []).map((p) => `${p.protocol}/${p.port}`).join(', ') || '—',
    },
  ] },
  INTERFACE: { label: 'Interfaces', columns: [
    { key: 'name', label: 'Interface', render: (r) => r.displayName },
    { key: 'mac', label: 'MAC', render: (r) => text(customAttributes(r).mac_address) },
    { key: 'ip', label: 'Addresses', render: (r) => (r.ipAddresses ?? []).join(', ') || '—' },
    { key: 'status', label: 'State', render: (r) => text(customAttributes(r).oper_status) },
    {
      key: 'connected',
      label: 'Connected to',
      render: (r) =>
        r.connectedTo?.length ? (
          <ul className="plain">
            {r.connectedTo.map((c) => (
              <li key={`${c.interfaceId}-${c.discoveredVia}`} className="connected-to">
                <Link to={`/assets/${c.assetId}`}>{c.assetDisplayName ?? c.assetId}</Link> · {c.port}{' '}
                <span className="muted">({c.discoveredVia}, {c.confidence.toFixed(2)})</span>
              </li>
            ))}
          </ul>
        ) : (
          '—'
        ),
    },
  ] },
};

function SubRecords({ hostId, type, view }: { hostId: string; type: string; view: SubRecordView }) {
  const [link, setLink] = useState<string>();
  const rows = useLoad(() => api<Page<Asset>>(link ?? `assets${query({ type, hostId, size: 100 })}`), [hostId, type, link]);
  return (
    <States loaded={rows} empty={(p) => p.data.length === 0}>
      {(p) => (
        <>
          <Table rows={p.data} columns={view.columns} rowKey={(r) => r.id} caption={`${p.total.toLocaleString()} in all`} />
          {(p.links.next || p.links.prev) && (
            <nav className="pager" aria-label="Pages">
              <button type="button" disabled={!p.links.prev} onClick={() => setLink(p.links.prev)}>‹ Previous</button>
              <button type="button" disabled={!p.links.next} onClick={() => setLink(p.links.next)}>Next ›</button>
            </nav>
          )}
        </>
      )}
    </States>
  );
}

/**
 * The sub-record kinds an asset shows as tabs: every kind on a host or network device; on anything
 * else (a printer or an IoT device a fingerprint named its services on) the kinds it has rows of.
 */
function useSubRecordTabs(asset: Asset | undefined, types: string[]): string[] {
  const host = asset?.assetCategory === 'HOST' || asset?.assetCategory === 'NETWORK_DEVICE';
  const id = asset?.id;
  const held = useLoad(
    async () => (host || !id ? types : (await Promise.all(types.map(async (type) => ((await api<Page<Asset>>(`assets${query({ type, hostId: id, size: 1 })}`)).total > 0 ? [type] : [])))).flat()),
    [id, host, types.join()],
  );
  return held.data ?? (host ? types : []);
}

export function AssetDetailPage() {
  const { id = '' } = useParams();
  const { has } = useSession();
  const asset = useLoad(() => api<{ data: Asset }>(`assets/${id}`), [id]);
  usePageTitle(asset.data?.data.displayName ?? 'Asset');
  const schema = useLoad(() => api<{ data: SchemaEntry[] }>('schema/asset-types'), []);
  // Bumped by a lifecycle action, after which the relationships are read again.
  const [version, setVersion] = useState(0);
  const rule = schema.data?.data.find((e) => e.type === asset.data?.data.assetType)?.parent ?? undefined;
  const parentEdges = useParentEdges(asset.data?.data, rule, version);
  const views = new Map((schema.data?.data ?? []).filter((e) => e.synthesized).map((e) => [e.type, SUB_VIEWS[e.type] ?? plainView(e)]));
  const shown = useSubRecordTabs(asset.data?.data, [...views.keys()]);
  const tabs = [RELATIONSHIPS_TAB, ...shown.map((type) => ({ id: type, label: views.get(type)?.label ?? type })), HISTORY_TAB];
  const [tab, setTab] = useState('relationships');
  const view = views.get(tab);
  const act = async (action: 'decommission' | 'reactivate') => {
    await api(`assets/${id}/${action}`, { method: 'POST' });
    asset.reload();
    setVersion((v) => v + 1);
  };
  return (
    <States loaded={asset}>
      {({ data: a }) => {
        const attributes = Object.entries(customAttributes(a));
        const host = a.assetCategory === 'HOST' || a.assetCategory === 'NETWORK_DEVICE';
        return (
          <section>
            <h1>{a.displayName}</h1>
            <p className="actions">
              <Link to={`/topology/${a.id}`}>Topology</Link>
              {has(...MAY.lifecycle) && a.status !== 'DECOMMISSIONED' && (
                <ConfirmButton label="Decommission" danger question={`Decommission ${a.displayName}? Its relationships become inactive; reactivating restores them.`} onConfirm={() => act('decommission')} />
              )}
              {has(...MAY.lifecycle) && a.status !== 'ACTIVE' && (
                <ConfirmButton label="Reactivate" question={`Reactivate ${a.displayName}?`} onConfirm={() => act('reactivate')} />
              )}
            </p>
            <Fields asset={a} inactiveParentEdge={inactiveParent(a, rule, parentEdges)} />
            <Identification id={a.id} />
            <h2>Custom attributes</h2>
            {attributes.length ? (
              <Table rows={attributes} rowKey={([k]) => k} columns={[
                { key: 'k', label: 'Attribute', render: ([k]) => <>{attributeLabel(k)} <span className="muted">({k})</span></> },
                { key: 'v', label: 'Value', render: ([k, v]) => attributeValue(k, v) },
              ]} />
            ) : (
              <p className="muted">None.</p>
            )}
            <Tabs tabs={tabs} current={tab} onChange={setTab} />
            <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
              {tab === HISTORY_TAB.id ? <AssetHistory key={a.id} id={a.id} version={version} />
                : view ? <SubRecords hostId={a.id} type={tab} view={view} /> : <Relationships key={a.id} id={a.id} version={version} cabled={host} />}
            </div>
          </section>
        );
      }}
    </States>
  );
}
