// One asset: every field with its category label, the parent as a link, the scan fields, the
// lifecycle actions for those allowed (with a confirmation), its relationships, its custom
// attributes, and tabs for what runs on it: packages, processes, services (with their ports) and
// interfaces with what each is connected to (the neighbour asset and port, the evidence, the
// confidence). The tabs are the synthesized types the schema serves (GET /schema/asset-types), so a
// new sub-record kind shows as a tab; the views below say how the known ones look.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, query, type Page } from '../api';
import { attributeLabel, attributeValue, customAttributes, isSoftwareCategory, vendorModelLabels } from '../asset-columns';
import { ConfirmButton, States, Table, Tabs, text, useLoad, usePageTitle, when, type Column } from '../components/ui';
import { MAY, useSession } from '../session';
import type { Asset, Relationship, SchemaEntry } from '../types';

const RELATIONSHIPS_TAB = { id: 'relationships', label: 'Relationships' };


function Fields({ asset }: { asset: Asset }) {
  const labels = vendorModelLabels(isSoftwareCategory(asset.assetCategory));
  // Category and Type, as the assets list and its filters name them.
  const rows: [string, React.ReactNode][] = [
    ['Category', `${asset.assetCategoryLabel} (${asset.assetCategory})`],
    ['Type', `${asset.assetSubtypeLabel} (${asset.assetType})`],
    ['Status', <span className={`status ${asset.status.toLowerCase()}`}>{asset.status}</span>],
    ['Parent', asset.parent ? <><Link to={`/assets/${asset.parent.id}`}>{asset.parent.displayName}</Link> <span className="muted">({asset.parent.via})</span></> : '—'],
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

function Relationships({ id }: { id: string }) {
  const rels = useLoad(() => api<Page<Relationship>>(`assets/${id}/relationships?size=200`), [id]);
  const columns: Column<Relationship>[] = [
    { key: 'type', label: 'Relationship', render: (r) => r.relationshipType },
    { key: 'source', label: 'From', render: (r) => (r.sourceAssetId === id ? 'this asset' : <Link to={`/assets/${r.sourceAssetId}`}>{r.sourceDisplayName}</Link>) },
    { key: 'target', label: 'To', render: (r) => (r.targetAssetId === id ? 'this asset' : <Link to={`/assets/${r.targetAssetId}`}>{r.targetDisplayName}</Link>) },
    { key: 'active', label: 'Active', render: (r) => (r.active ? 'yes' : 'no') },
    { key: 'seen', label: 'Last seen', render: (r) => when(r.lastSeenAt) },
  ];
  return <States loaded={rels} empty={(p) => p.data.length === 0}>{(p) => <Table rows={p.data} columns={columns} rowKey={(r) => r.id} />}</States>;
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

export function AssetDetailPage() {
  const { id = '' } = useParams();
  const { has } = useSession();
  const asset = useLoad(() => api<{ data: Asset }>(`assets/${id}`), [id]);
  usePageTitle(asset.data?.data.displayName ?? 'Asset');
  const schema = useLoad(() => api<{ data: SchemaEntry[] }>('schema/asset-types'), []);
  const views = new Map((schema.data?.data ?? []).filter((e) => e.synthesized).map((e) => [e.type, SUB_VIEWS[e.type] ?? plainView(e)]));
  const tabs = [RELATIONSHIPS_TAB, ...[...views].map(([type, view]) => ({ id: type, label: view.label }))];
  const [tab, setTab] = useState('relationships');
  const view = views.get(tab);
  const act = async (action: 'decommission' | 'reactivate') => {
    await api(`assets/${id}/${action}`, { method: 'POST' });
    asset.reload();
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
            <Fields asset={a} />
            <h2>Custom attributes</h2>
            {attributes.length ? (
              <Table rows={attributes} rowKey={([k]) => k} columns={[
                { key: 'k', label: 'Attribute', render: ([k]) => <>{attributeLabel(k)} <span className="muted">({k})</span></> },
                { key: 'v', label: 'Value', render: ([k, v]) => attributeValue(k, v) },
              ]} />
            ) : (
              <p className="muted">None.</p>
            )}
            <Tabs tabs={host ? tabs : [RELATIONSHIPS_TAB]} current={tab} onChange={setTab} />
            <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
              {view ? <SubRecords hostId={a.id} type={tab} view={view} /> : <Relationships id={a.id} />}
            </div>
          </section>
        );
      }}
    </States>
  );
}
