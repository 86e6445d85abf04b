// Discovery: the targets (create, edit, schedule, scan now) for those who run scans, and the runs
// with their live status and progress for everyone.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError, query, type Page } from '../api';
import { ErrorBox, Field, Pager, States, Table, text, useLoad, useRefresh, when, type Column } from '../components/ui';
import { MAY, useSession } from '../session';
import type { components } from '../../../src/platform/http/api-types';
import type { Credential, Run, Target } from '../types';

type Method = NonNullable<components['schemas']['NewTarget']['methods']>[number];
// Every inventory method of api.yaml: the type check fails while api.yaml has one this list lacks.
const METHODS = ['SWEEP', 'SSH', 'SNMP', 'VCENTER', 'LIBVIRT', 'CONTAINERS'] as const satisfies readonly Method[];
const EVERY_METHOD_LISTED: [Exclude<Method, (typeof METHODS)[number]>] extends [never] ? true : never = true;
void EVERY_METHOD_LISTED;
// What a new target starts with: the API's own choice when methods are left out.
const DEFAULT_METHODS: Method[] = ['SWEEP', 'SSH', 'SNMP'];
const ACTIVE = ['QUEUED', 'RUNNING'];

export function Progress({ run }: { run: Pick<Run, 'progress' | 'status'> }) {
  const { done, total } = run.progress;
  return (
    <span className="progress">
      <progress max={Math.max(total, 1)} value={done} aria-label={`${done} of ${total} hosts`} /> {done}/{total}
    </span>
  );
}

function TargetForm({ target, onSaved, onCancel }: { target?: Target; onSaved: () => void; onCancel: () => void }) {
  const credentials = useLoad(() => api<Page<Credential>>('credentials?size=1000'), []);
  const [name, setName] = useState(target?.name ?? '');
  const [addresses, setAddresses] = useState(target?.addresses.join('\n') ?? '');
  const [methods, setMethods] = useState<string[]>(target?.methods ?? DEFAULT_METHODS);
  const [schedule, setSchedule] = useState(target?.schedule ?? '');
  const [credentialIds, setCredentialIds] = useState<string[]>(target?.credentialIds ?? []);
  const [error, setError] = useState<ApiError>();
  return (
    <form
      className="card"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        const body = { name, addresses: addresses.split(/[\s,]+/).filter(Boolean), methods, schedule: schedule.trim() || null, credentialIds };
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
        {METHODS.map((m) => (
          <label key={m}><input type="checkbox" checked={methods.includes(m)} onChange={(e) => setMethods(e.target.checked ? [...methods, m] : methods.filter((x) => x !== m))} /> {m}</label>
        ))}
      </fieldset>
      <Field label="Schedule (cron, UTC; empty for none)"><input value={schedule} placeholder="0 0 3 * * *" onChange={(e) => setSchedule(e.target.value)} /></Field>
      <fieldset className="inline-set">
        <legend>Credentials (besides those whose match pattern covers an address)</legend>
        {(credentials.data?.data ?? []).map((c) => (
          <label key={c.id}><input type="checkbox" checked={credentialIds.includes(c.id)} onChange={(e) => setCredentialIds(e.target.checked ? [...credentialIds, c.id] : credentialIds.filter((x) => x !== c.id))} /> {c.name} <span className="muted">({c.kind})</span></label>
        ))}
      </fieldset>
      <ErrorBox error={error} />
      <div className="actions">
        <button type="button" onClick={onCancel}>Cancel</button>
        <button type="submit" className="primary">Save</button>
      </div>
    </form>
  );
}

function Targets() {
  const targets = useLoad(() => api<Page<Target>>('discovery/targets?size=200'), []);
  const [editing, setEditing] = useState<Target | 'new'>();
  const [error, setError] = useState<ApiError>();
  const navigate = useNavigate();
  const columns: Column<Target>[] = [
    { key: 'name', label: 'Target', render: (t) => t.name },
    { key: 'addresses', label: 'Addresses', render: (t) => t.addresses.slice(0, 3).join(', ') + (t.addresses.length > 3 ? '…' : '') },
    { key: 'methods', label: 'Methods', render: (t) => t.methods.join(', ') },
    { key: 'schedule', label: 'Schedule', render: (t) => text(t.schedule) },
    {
      key: 'actions',
      label: 'Actions',
      render: (t) => (
        <span className="actions">
          <button
            type="button"
            onClick={async () => {
              setError(undefined);
              try {
                const { data } = await api<{ data: Run }>(`discovery/targets/${t.id}/scan`, { method: 'POST' });
                navigate(`/discovery/runs/${data.id}`);
              } catch (err) {
                setError(err as ApiError);
              }
            }}
          >
            Scan now
          </button>
          <button type="button" onClick={() => setEditing(t)}>Edit</button>
        </span>
      ),
    },
  ];
  return (
    <section>
      <h2>Targets</h2>
      {editing ? (
        <TargetForm target={editing === 'new' ? undefined : editing} onCancel={() => setEditing(undefined)} onSaved={() => { setEditing(undefined); targets.reload(); }} />
      ) : (
        <button type="button" className="primary" onClick={() => setEditing('new')}>New target</button>
      )}
      <ErrorBox error={error} />
      <States loaded={targets} empty={(p) => p.data.length === 0}>{(p) => <Table rows={p.data} columns={columns} rowKey={(t) => t.id} />}</States>
    </section>
  );
}

export function Runs() {
  const [link, setLink] = useState<string>();
  const runs = useLoad(() => api<Page<Run>>(link ?? `discovery/runs${query({ size: 25 })}`), [link]);
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
      <h2>Runs</h2>
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
  const { has } = useSession();
  return (
    <section>
      <h1>Discovery</h1>
      {has(...MAY.discovery) && <Targets />}
      <Runs />
    </section>
  );
}
