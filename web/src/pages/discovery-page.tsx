// Discovery: the targets (create, edit, schedule, scan now, enable or disable, delete after a
// confirmation) for those who run scans, and the runs with their live status and progress for
// everyone, all of them or one target's (?target=, where a run links to). The methods, the ones a new target starts
// with and each method's port and settings fields come from GET /discovery/methods (the
// connector registry), so that a new connector shows here without a change to this page.
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, ApiError, query, type Page } from '../api';
import { SchemaFields, type FieldValues } from '../components/schema-fields';
import { ConfirmButton, ErrorBox, Field, Pager, States, Table, text, useLoad, usePageTitle, useRefresh, when, type Column } from '../components/ui';
import { MAY, useSession } from '../session';
import type { Credential, DiscoveryMethod, Run, Target } from '../types';

const ACTIVE = ['QUEUED', 'RUNNING'];

/** The form's labels by the API's field names, so that a refusal names the field as the form does. */
const TARGET_LABELS = { name: 'Name', addresses: 'Addresses', methods: 'Methods', ports: 'Ports', settings: 'Settings', schedule: 'Schedule', credentialIds: 'Credentials' };

type SettingValues = Record<string, FieldValues>;

/** The port and settings of each inventory method the target takes. */
function MethodOptions({ catalogue, methods, ports, settings, onPorts, onSettings }: {
  catalogue: DiscoveryMethod[];
  methods: string[];
  ports: Record<string, string>;
  settings: SettingValues;
  onPorts: (ports: Record<string, string>) => void;
  onSettings: (settings: SettingValues) => void;
}) {
  return (
    <>
      {catalogue.filter((m) => m.stage === 'inventory' && methods.includes(m.method)).map((m) => (
        <fieldset key={m.method} className="method-options">
          <legend>{m.method}</legend>
          {m.credentialKinds.length > 0 && <p className="muted">Credentials of kind {m.credentialKinds.join(', ')}{m.credentialsOptional ? ' (optional)' : ''}</p>}
          <Field label={`${m.method} port`}>
            <input type="number" min={1} max={65535} placeholder={String(m.defaultPort ?? '')} value={ports[m.method] ?? ''} onChange={(e) => onPorts({ ...ports, [m.method]: e.target.value })} />
          </Field>
          {m.settings && (
            <SchemaFields schema={m.settings} values={settings[m.method] ?? {}} onChange={(values) => onSettings({ ...settings, [m.method]: values })}
              label={(key, property) => `${m.method} ${key}${property.description ? ` (${property.description})` : ''}`} />
          )}
        </fieldset>
      ))}
    </>
  );
}

export function Progress({ run }: { run: Pick<Run, 'progress' | 'status'> }) {
  const { done, total } = run.progress;
  return (
    <span className="progress">
      <progress max={Math.max(total, 1)} value={done} aria-label={`${done} of ${total} hosts`} /> {done}/{total}
    </span>
  );
}

function TargetForm({ catalogue, target, onSaved, onCancel }: { catalogue: DiscoveryMethod[]; target?: Target; onSaved: () => void; onCancel: () => void }) {
  const credentials = useLoad(() => api<Page<Credential>>('credentials?size=1000'), []);
  const [name, setName] = useState(target?.name ?? '');
  const [addresses, setAddresses] = useState(target?.addresses.join('\n') ?? '');
  // What a new target starts with: the API's own choice when methods are left out.
  const [methods, setMethods] = useState<string[]>(target?.methods ?? catalogue.filter((m) => m.enabledByDefault).map((m) => m.method));
  // Ports and settings are sent only once shown: a target saved without them keeps its own.
  const [tuning, setTuning] = useState(false);
  const ownPorts: Record<string, number> = target?.ports ?? {};
  const [ports, setPorts] = useState<Record<string, string>>(Object.fromEntries(catalogue.filter((m) => m.method in ownPorts && ownPorts[m.method] !== m.defaultPort).map((m) => [m.method, String(ownPorts[m.method])])));
  const [settings, setSettings] = useState<SettingValues>((target?.settings ?? {}) as SettingValues);
  const [schedule, setSchedule] = useState(target?.schedule ?? '');
  const [credentialIds, setCredentialIds] = useState<string[]>(target?.credentialIds ?? []);
  const [error, setError] = useState<ApiError>();
  return (
    <form
      className="card"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        const chosen = catalogue.filter((m) => m.stage === 'inventory' && methods.includes(m.method));
        const tuned = tuning
          ? {
              ports: Object.fromEntries(chosen.filter((m) => ports[m.method]).map((m) => [m.method, Number(ports[m.method])])),
              settings: Object.fromEntries(chosen.filter((m) => m.settings).map((m) => [m.method, settings[m.method] ?? {}])),
            }
          : {};
        const body = { name, addresses: addresses.split(/[\s,]+/).filter(Boolean), methods, schedule: schedule.trim() || null, credentialIds, ...tuned };
        try {
          await api(target ? `discovery/targets/${target.id}` : 'discovery/targets', { method: target ? 'PUT' : 'POST', body });
          onSaved();
        } catch (err) {
          setError(err as ApiError);
        }
      }}
    >
      <h2>{target ? `Edit ${target.name}` : 'New target'}</h2>
      <Field label="Name"><input required value={name} onChange={(e) => setName(e.target.value)} /></Field>
      <Field label="Addresses (IPs, CIDRs, ranges, host names; one per line)">
        <textarea required rows={4} value={addresses} onChange={(e) => setAddresses(e.target.value)} />
      </Field>
      <fieldset className="inline-set">
        <legend>Methods</legend>
        {catalogue.map(({ method: m }) => (
          <label key={m}><input type="checkbox" checked={methods.includes(m)} onChange={(e) => setMethods(e.target.checked ? [...methods, m] : methods.filter((x) => x !== m))} /> {m}</label>
        ))}
      </fieldset>
      <button type="button" aria-expanded={tuning} onClick={() => setTuning(!tuning)}>Ports and settings</button>
      {tuning && <MethodOptions catalogue={catalogue} methods={methods} ports={ports} settings={settings} onPorts={setPorts} onSettings={setSettings} />}
      <Field label="Schedule (cron, UTC; empty for none)"><input value={schedule} placeholder="0 0 3 * * *" onChange={(e) => setSchedule(e.target.value)} /></Field>
      <fieldset className="inline-set">
        <legend>Credentials (besides those whose match pattern covers an address)</legend>
        {(credentials.data?.data ?? []).map((c) => (
          <label key={c.id}><input type="checkbox" checked={credentialIds.includes(c.id)} onChange={(e) => setCredentialIds(e.target.checked ? [...credentialIds, c.id] : credentialIds.filter((x) => x !== c.id))} /> {c.name} <span className="muted">({c.kind})</span></label>
        ))}
      </fieldset>
      <ErrorBox error={error} labels={TARGET_LABELS} />
      <div className="actions">
        <button type="button" onClick={onCancel}>Cancel</button>
        <button type="submit" className="primary">Save</button>
      </div>
    </form>
  );
}

function Targets() {
  const targets = useLoad(() => api<Page<Target>>('discovery/targets?size=200'), []);
  const catalogue = useLoad(() => api<{ data: DiscoveryMethod[] }>('discovery/methods'), []);
  const [editing, setEditing] = useState<Target | 'new'>();
  const [error, setError] = useState<ApiError>();
  const navigate = useNavigate();
  /** An action on a target: a refusal shows above the list, and the list is read again. */
  const act = async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
      targets.reload();
    } catch (err) {
      setError(err as ApiError);
    }
  };
  const columns: Column<Target>[] = [
    { key: 'name', label: 'Target', render: (t) => <>{t.name} <Link to={`/discovery?target=${t.id}`} aria-label={`Runs of ${t.name}`}>runs</Link></> },
    { key: 'addresses', label: 'Addresses', render: (t) => t.addresses.slice(0, 3).join(', ') + (t.addresses.length > 3 ? '…' : '') },
    { key: 'methods', label: 'Methods', render: (t) => t.methods.join(', ') },
    { key: 'schedule', label: 'Schedule', render: (t) => text(t.schedule) },
    { key: 'state', label: 'State', render: (t) => (t.enabled ? 'enabled' : 'disabled') },
    {
      key: 'actions',
      label: 'Actions',
      render: (t) => (
        <span className="actions">
          <button
            type="button"
            disabled={!t.enabled}
            title={t.enabled ? undefined : 'A disabled target is not scanned'}
            onClick={() => void act(async () => {
              const { data } = await api<{ data: Run }>(`discovery/targets/${t.id}/scan`, { method: 'POST' });
              navigate(`/discovery/runs/${data.id}`);
            })}
          >
            Scan now
          </button>
          <button type="button" onClick={() => setEditing(t)}>Edit</button>
          <button type="button" onClick={() => void act(() => api(`discovery/targets/${t.id}`, { method: 'PUT', body: { enabled: !t.enabled } }))}>{t.enabled ? 'Disable' : 'Enable'}</button>
          <ConfirmButton label="Delete" danger question={`Delete the target ${t.name} and its schedule? Its past runs are kept.`}
            onConfirm={async () => { await api(`discovery/targets/${t.id}`, { method: 'DELETE' }); targets.reload(); }} />
        </span>
      ),
    },
  ];
  return (
    <section>
      <h2>Targets</h2>
      {editing ? (
        <States loaded={catalogue}>
          {({ data }) => <TargetForm catalogue={data} target={editing === 'new' ? undefined : editing} onCancel={() => setEditing(undefined)} onSaved={() => { setEditing(undefined); targets.reload(); }} />}
        </States>
      ) : (
        <button type="button" className="primary" onClick={() => setEditing('new')}>New target</button>
      )}
      <ErrorBox error={error} />
      <States loaded={targets} empty={(p) => p.data.length === 0}>{(p) => <Table rows={p.data} columns={columns} rowKey={(t) => t.id} />}</States>
    </section>
  );
}

export function Runs({ targetId }: { targetId?: string }) {
  const [link, setLink] = useState<string>();
  const runs = useLoad(() => api<Page<Run>>(link ?? `discovery/runs${query({ size: 25, targetId })}`), [link, targetId]);
  const columns: Column<Run>[] = [
    { key: 'target', label: 'Target', render: (r) => <Link to={`/discovery/runs/${r.id}`}>{r.targetName}</Link> },
    { key: 'status', label: 'Status', render: (r) => <span className={`status ${r.status.toLowerCase()}`}>{r.status}</span> },
    { key: 'progress', label: 'Progress', render: (r) => <Progress run={r} /> },
    { key: 'queued', label: 'Queued', render: (r) => when(r.queuedAt) },
    { key: 'summary', label: 'Hosts / created / updated / errors', render: (r) => `${r.summary.hostsResponding} / ${r.summary.assetsCreated} / ${r.summary.assetsUpdated} / ${r.summary.errors}` },
  ];
  // While a run is going, the list refreshes itself.
  const going = runs.data?.data.some((r) => ACTIVE.includes(r.status));
  useRefresh(going === true, runs.reload);
  return (
    <section>
      <h2>{targetId ? `Runs of ${runs.data?.data[0]?.targetName ?? 'one target'}` : 'Runs'}</h2>
      {targetId && <p><Link to="/discovery">All runs</Link></p>}
      <States loaded={runs} empty={(p) => p.data.length === 0}>
        {(p) => (
          <>
            <Table rows={p.data} columns={columns} rowKey={(r) => r.id} />
            <Pager page={p.page} total={p.total} pageSize={p.pageSize} links={p.links} onFollow={setLink} />
          </>
        )}
      </States>
    </section>
  );
}

export function DiscoveryPage() {
  usePageTitle('Discovery');
  const { has } = useSession();
  const [params] = useSearchParams();
  return (
    <section>
      <h1>Discovery</h1>
      {has(...MAY.discovery) && <Targets />}
      <Runs key={params.get('target')} targetId={params.get('target') ?? undefined} />
    </section>
  );
}
