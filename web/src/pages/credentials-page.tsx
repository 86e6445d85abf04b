// Credentials of discovery: list, create and edit, the targets that name each, and a try of each at
// one address by its discovery method (its outcome and error codes). Secret fields can be replaced but are never
// shown: the service never returns them, and the form forgets what was typed once it is saved.
// The kinds, their settings fields and their secret fields come from GET /credential-kinds, so that
// a new kind shows here without a change to this page.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, ApiError, type Page } from '../api';
import { SchemaFields, schemaProperties, type FieldValues } from '../components/schema-fields';
import { ConfirmButton, ErrorBox, Field, States, Table, useLoad, usePagedList, usePageTitle, when, type Column } from '../components/ui';
import { MAY, useSession } from '../session';
import type { Credential, CredentialKind, CredentialTestOutcome, CredentialUse } from '../types';

function CredentialForm({ kinds, credential, onDone }: { kinds: CredentialKind[]; credential?: Credential; onDone: () => void }) {
  const [kind, setKind] = useState(credential?.kind ?? kinds[0]?.kind);
  const [name, setName] = useState(credential?.name ?? '');
  const [patterns, setPatterns] = useState(credential?.matchPatterns.join('\n') ?? '');
  const [allowBroadMatch, setAllowBroadMatch] = useState(credential?.allowBroadMatch ?? false);
  const [settings, setSettings] = useState<FieldValues>((credential?.settings ?? {}) as FieldValues);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError>();
  const spec = kinds.find((k) => k.kind === kind);
  const settingNames = schemaProperties(spec?.settings);
  return (
    <form
      className="card"
      autoComplete="off"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        const body: Record<string, unknown> = {
          name,
          matchPatterns: patterns.split(/[\s,]+/).filter(Boolean),
          allowBroadMatch,
          settings: Object.fromEntries(Object.entries(settings).filter(([k]) => settingNames.includes(k))),
        };
        const given = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v !== ''));
        if (!credential) Object.assign(body, { kind, secrets: given });
        else if (Object.keys(given).length) body.secrets = given;
        try {
          await api(credential ? `credentials/${credential.id}` : 'credentials', { method: credential ? 'PUT' : 'POST', body });
          // Nothing of a secret stays in the page once it is saved.
          setSecrets({});
          onDone();
        } catch (err) {
          setError(err as ApiError);
        }
      }}
    >
      <h2>{credential ? `Edit ${credential.name}` : 'New credential'}</h2>
      <Field label="Name"><input required value={name} onChange={(e) => setName(e.target.value)} /></Field>
      {!credential && (
        <Field label="Kind">
          <select value={kind} onChange={(e) => { setKind(e.target.value as Credential['kind']); setSettings({}); setSecrets({}); }}>
            {kinds.map((k) => <option key={k.kind}>{k.kind}</option>)}
          </select>
        </Field>
      )}
      {spec && <p className="muted">{spec.description}</p>}
      <Field label="Match patterns (CIDRs, IPs, host names with * and ?; one per line)">
        <textarea rows={2} value={patterns} onChange={(e) => setPatterns(e.target.value)} />
      </Field>
      <label className="inline">
        <input type="checkbox" checked={allowBroadMatch} onChange={(e) => setAllowBroadMatch(e.target.checked)} /> Allow broad match patterns
      </label>
      <p className="muted">
        The credential is offered to every address its patterns cover that answers, a rogue host too. A pattern wider than a /16 (IPv4) or
        a /48 (IPv6), as the service is set, or a host name pattern with * or ? in its last two labels, is refused unless this is ticked.
      </p>
      {spec && <SchemaFields schema={spec.settings} values={settings} onChange={setSettings} label={(key) => key} />}
      {spec?.secretFields.map(({ name: s, multiline }) => (
        <Field key={s} label={`${s} (write-only${credential?.secretFields?.includes(s) ? '; set — type to replace' : ''})`}>
          {multiline ? (
            <textarea rows={3} value={secrets[s] ?? ''} onChange={(e) => setSecrets({ ...secrets, [s]: e.target.value })} />
          ) : (
            <input type="password" autoComplete="new-password" value={secrets[s] ?? ''} onChange={(e) => setSecrets({ ...secrets, [s]: e.target.value })} />
          )}
        </Field>
      ))}
      <ErrorBox error={error} />
      <div className="actions">
        <button type="button" onClick={() => { setSecrets({}); onDone(); }}>Cancel</button>
        <button type="submit" className="primary">Save</button>
      </div>
    </form>
  );
}

/** The targets that name a credential (GET /credentials/{id}/targets), read when the list is opened. */
function UsedBy({ credential }: { credential: Credential }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Targets</summary>
      {open && <UsedByTargets id={credential.id} />}
    </details>
  );
}

function UsedByTargets({ id }: { id: string }) {
  const targets = useLoad(() => api<Page<CredentialUse>>(`credentials/${id}/targets?size=100`), [id]);
  return (
    <States loaded={targets} empty={(p) => p.data.length === 0}>
      {(p) => (
        <ul className="plain">
          {p.data.map((t) => (
            <li key={t.id}>
              <Link to={`/discovery?target=${t.id}`}>{t.name}</Link>
              {!t.enabled && <span className="muted"> (disabled)</span>}
            </li>
          ))}
          {p.total > p.data.length && <li className="muted">and {p.total - p.data.length} more</li>}
        </ul>
      )}
    </States>
  );
}

/** The credential tried at one address by its discovery method (POST /credentials/{id}/test): the outcome and the error codes. */
function TestAt({ credential }: { credential: Credential }) {
  const [address, setAddress] = useState('');
  const [port, setPort] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<CredentialTestOutcome>();
  const [error, setError] = useState<ApiError>();
  const run = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult((await api<{ data: CredentialTestOutcome }>(`credentials/${credential.id}/test`, { method: 'POST', body: { address: address.trim(), ...(port ? { port: Number(port) } : {}) } })).data);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure : new ApiError(0, 'Error', String(failure)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <details>
      <summary>Test</summary>
      <form className="inline-form" onSubmit={(e) => void run(e)}>
        <label className="inline"><span>Address</span><input value={address} required placeholder="10.20.1.15" onChange={(e) => setAddress(e.target.value)} /></label>
        <label className="inline"><span>Port</span><input type="number" min={1} max={65535} value={port} placeholder="the method's" onChange={(e) => setPort(e.target.value)} /></label>
        <button type="submit" disabled={busy}>{busy ? 'Testing…' : `Test ${credential.name}`}</button>
      </form>
      <ErrorBox error={error} labels={{ address: 'Address', port: 'Port' }} />
      {result && (
        <p role="status" data-outcome={result.outcome}>
          <span className={result.outcome === 'SUCCEEDED' ? 'status active' : 'status failed'}>{result.outcome === 'SUCCEEDED' ? 'Worked' : 'Failed'}</span>{' '}
          {result.method} at {result.address}:{result.port}
          {result.errors.map((x) => <span key={`${x.stage}:${x.code}`}> · <code>{x.code}</code> {x.message}</span>)}
        </p>
      )}
    </details>
  );
}

const CREDENTIALS_PAGE = 100;

export function CredentialsPage() {
  usePageTitle('Credentials');
  const { has } = useSession();
  const { list: credentials, pager } = usePagedList<Credential>('credentials', CREDENTIALS_PAGE, 'Pages of credentials');
  const kinds = useLoad(() => api<{ data: CredentialKind[] }>('credential-kinds'), []);
  const [editing, setEditing] = useState<Credential | 'new'>();
  if (!has(...MAY.discovery)) return <p className="notice forbidden">You may not see credentials: your roles do not allow it.</p>;
  const columns: Column<Credential>[] = [
    { key: 'name', label: 'Name', render: (c) => c.name },
    { key: 'kind', label: 'Kind', render: (c) => c.kind },
    { key: 'patterns', label: 'Match patterns', render: (c) => `${c.matchPatterns.join(', ') || '—'}${c.allowBroadMatch ? ' (broad allowed)' : ''}` },
    { key: 'secrets', label: 'Secrets set', render: (c) => (c.secretFields ?? []).join(', ') || '—' },
    { key: 'used', label: 'Named by', render: (c) => <UsedBy credential={c} /> },
    { key: 'test', label: 'Try it', render: (c) => <TestAt credential={c} /> },
    { key: 'updated', label: 'Updated', render: (c) => when(c.updatedAt) },
    {
      key: 'actions',
      label: 'Actions',
      render: (c) => (
        <span className="actions">
          <button type="button" onClick={() => setEditing(c)}>Edit</button>
          <ConfirmButton label="Delete" danger question={`Delete the credential ${c.name}?`} onConfirm={async () => { await api(`credentials/${c.id}`, { method: 'DELETE' }); credentials.reload(); }} />
        </span>
      ),
    },
  ];
  return (
    <section>
      <h1>Credentials</h1>
      {editing ? (
        <States loaded={kinds}>
          {({ data }) => <CredentialForm key={editing === 'new' ? 'new' : editing.id} kinds={data} credential={editing === 'new' ? undefined : editing} onDone={() => { setEditing(undefined); credentials.reload(); }} />}
        </States>
      ) : (
        <button type="button" className="primary" onClick={() => setEditing('new')}>New credential</button>
      )}
      <States loaded={credentials} empty={(p) => p.data.length === 0}>{(p) => <><Table rows={p.data} columns={columns} rowKey={(c) => c.id} />{pager}</>}</States>
    </section>
  );
}
