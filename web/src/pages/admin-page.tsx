// Administration: users and their roles (each change of roles or state after a confirmation), integration keys (created and shown once with a copy
// button, listed, revoked), and the audit trail: each target named and linked to its page, filtered
// by an action of the server's list, a time range and text.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, ApiError, query, type Page } from '../api';
import { ConfirmButton, ConfirmDialog, ErrorBox, Field, instant, Pager, ShownOnce, States, Table, text, useLoad, usePagedList, usePageTitle, when, type Column } from '../components/ui';
import { MAY, useSession, type Role } from '../session';
import type { AuditEvent } from '../types';

interface User { id: string; username: string; displayName: string | null; roles: Role[]; disabled: boolean; lastLoginAt: string | null }
export interface Token { id: string; name: string; hint: string; status: string; createdAt: string; expiresAt: string | null; lastUsedAt: string | null }

const ROLES: Role[] = ['ADMINISTRATOR', 'DISCOVERY_ADMIN', 'API_USER', 'ANALYST', 'VIEWER'];
/** Rows per page of the users and of the token lists. */
const LIST_PAGE = 100;

function Users() {
  const { list: users, pager } = usePagedList<User>('users', LIST_PAGE, 'Pages of users');
  const [form, setForm] = useState({ username: '', password: '', roles: ['VIEWER'] as Role[] });
  const [error, setError] = useState<ApiError>();
  // A role ticked or unticked waits here for its confirmation.
  const [roleChange, setRoleChange] = useState<{ user: User; role: Role; given: boolean }>();
  const update = async (user: User, body: object) => {
    await api(`users/${user.id}`, { method: 'PUT', body });
    users.reload();
  };
  const columns: Column<User>[] = [
    { key: 'username', label: 'User', render: (u) => u.username },
    {
      key: 'roles',
      label: 'Roles',
      render: (u) => (
        <span className="inline-set">
          {ROLES.map((r) => (
            <label key={r}><input type="checkbox" checked={u.roles.includes(r)} onChange={(e) => setRoleChange({ user: u, role: r, given: e.target.checked })} /> {r}</label>
          ))}
        </span>
      ),
    },
    { key: 'login', label: 'Last sign-in', render: (u) => when(u.lastLoginAt) },
    {
      key: 'state',
      label: 'State',
      render: (u) => (u.disabled
        ? <ConfirmButton label="Enable" question={`Enable ${u.username}? They can sign in again with their roles.`} onConfirm={() => update(u, { disabled: false })} />
        : <ConfirmButton label="Disable" danger question={`Disable ${u.username}? They can no longer sign in until enabled again.`} onConfirm={() => update(u, { disabled: true })} />),
    },
  ];
  return (
    <section>
      <h2>Users</h2>
      <form
        className="card inline-form"
        autoComplete="off"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            await api('users', { method: 'POST', body: form });
            setForm({ username: '', password: '', roles: ['VIEWER'] });
            users.reload();
          } catch (err) {
            setError(err as ApiError);
          }
        }}
      >
        <Field label="User name"><input required value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} /></Field>
        <Field label="Password (12 characters or more)"><input required type="password" autoComplete="new-password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} /></Field>
        <Field label="Role">
          <select value={form.roles[0]} onChange={(e) => setForm({ ...form, roles: [e.target.value as Role] })}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select>
        </Field>
        <button type="submit" className="primary">Add user</button>
      </form>
      <ErrorBox error={error} />
      <States loaded={users}>{(p) => <><Table rows={p.data} columns={columns} rowKey={(u) => u.id} />{pager}</>}</States>
      {roleChange && (
        <ConfirmDialog
          label={roleChange.given ? 'Give the role' : 'Take the role away'}
          question={roleChange.given ? `Give ${roleChange.user.username} the role ${roleChange.role}?` : `Take the role ${roleChange.role} from ${roleChange.user.username}?`}
          onConfirm={() => update(roleChange.user, { roles: roleChange.given ? [...roleChange.user.roles, roleChange.role] : roleChange.user.roles.filter((x) => x !== roleChange.role) })}
          onClose={() => setRoleChange(undefined)}
        />
      )}
    </section>
  );
}

/** A list of tokens or keys: create (shown once), list, revoke. */
export function TokenManager({ title, path, createLabel }: { title: string; path: string; createLabel: string }) {
  const { list: tokens, pager, toFirst } = usePagedList<Token>(path, LIST_PAGE, `Pages of ${title}`);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string>();
  const [error, setError] = useState<ApiError>();
  const columns: Column<Token>[] = [
    { key: 'name', label: 'Name', render: (t) => t.name },
    { key: 'hint', label: 'Begins with', render: (t) => <code>{t.hint}</code> },
    { key: 'status', label: 'Status', render: (t) => t.status },
    { key: 'created', label: 'Created', render: (t) => when(t.createdAt) },
    { key: 'used', label: 'Last used', render: (t) => when(t.lastUsedAt) },
    {
      key: 'revoke',
      label: 'Actions',
      render: (t) => (t.status === 'ACTIVE' ? <ConfirmButton label="Revoke" danger question={`Revoke ${t.name}? Whatever uses it stops working at once.`} onConfirm={async () => { await api(`${path}/${t.id}`, { method: 'DELETE' }); tokens.reload(); }} /> : '—'),
    },
  ];
  return (
    <section>
      <h2>{title}</h2>
      {created ? (
        <ShownOnce label="The new secret:" secret={created} onClose={() => setCreated(undefined)} />
      ) : (
        <form
          className="card inline-form"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(undefined);
            try {
              const { data } = await api<{ data: { token: string } }>(path, { method: 'POST', body: { name } });
              setName('');
              setCreated(data.token);
              toFirst();
            } catch (err) {
              setError(err as ApiError);
            }
          }}
        >
          <Field label="Name"><input required value={name} onChange={(e) => setName(e.target.value)} /></Field>
          <button type="submit" className="primary">{createLabel}</button>
        </form>
      )}
      <ErrorBox error={error} />
      <States loaded={tokens} empty={(p) => p.data.length === 0}>{(p) => <><Table rows={p.data} columns={columns} rowKey={(t) => t.id} />{pager}</>}</States>
    </section>
  );
}

/** Where an audit event's target is shown, by its kind (those without a page of their own have none). */
function targetPath(e: AuditEvent): string | undefined {
  if (!e.targetId) return undefined;
  switch (e.targetKind) {
    case 'ASSET': return `/assets/${e.targetId}`;
    case 'DISCOVERY_TARGET': return `/discovery?target=${e.targetId}`;
    case 'DISCOVERY_RUN': return `/discovery/runs/${e.targetId}`;
    case 'CREDENTIAL': return '/credentials';
    default: return undefined;
  }
}

function AuditTarget({ event }: { event: AuditEvent }) {
  if (!event.targetKind) return <>—</>;
  const name = event.targetName ?? event.targetId ?? '—';
  const path = targetPath(event);
  return (
    <>
      {path ? <Link to={path}>{name}</Link> : name} <span className="muted">{event.targetKind.toLowerCase().replace(/_/g, ' ')}</span>
    </>
  );
}

function Audit() {
  const empty = { action: '', from: '', to: '', q: '' };
  const [filter, setFilter] = useState(empty);
  const [applied, setApplied] = useState(filter);
  const [link, setLink] = useState<string>();
  const actions = useLoad(() => api<{ data: string[] }>('audit-events/actions'), [applied]);
  const events = useLoad(
    () => api<Page<AuditEvent>>(link ?? `audit-events${query({ action: applied.action, from: instant(applied.from), to: instant(applied.to), q: applied.q.trim(), size: 50 })}`),
    [applied, link],
  );
  const apply = (next: typeof filter) => {
    setFilter(next);
    setLink(undefined);
    setApplied(next);
  };
  const columns: Column<AuditEvent>[] = [
    { key: 'when', label: 'When', render: (e) => when(e.occurredAt) },
    { key: 'actor', label: 'Who', render: (e) => `${text(e.actorName)} (${e.actorKind})` },
    { key: 'action', label: 'Action', render: (e) => <code>{e.action}</code> },
    { key: 'target', label: 'Target', render: (e) => <AuditTarget event={e} /> },
    { key: 'ip', label: 'From', render: (e) => text(e.sourceIp) },
  ];
  return (
    <section>
      <h2>Audit trail</h2>
      <form className="filters" onSubmit={(e) => { e.preventDefault(); apply(filter); }}>
        <label className="inline">
          <span>Action</span>
          <select value={filter.action} onChange={(e) => apply({ ...filter, action: e.target.value })}>
            <option value="">Any action</option>
            {(actions.data?.data ?? []).map((a) => <option key={a} value={a}>{a}</option>)}
          </select>
        </label>
        <label className="inline"><span>From</span><input type="datetime-local" value={filter.from} onChange={(e) => setFilter({ ...filter, from: e.target.value })} /></label>
        <label className="inline"><span>To</span><input type="datetime-local" value={filter.to} onChange={(e) => setFilter({ ...filter, to: e.target.value })} /></label>
        <label className="inline search"><span>Text</span><input type="search" value={filter.q} placeholder="a name, an id, an action" onChange={(e) => setFilter({ ...filter, q: e.target.value })} /></label>
        <button type="submit">Filter</button>
        {JSON.stringify(applied) !== JSON.stringify(empty) && <button type="button" className="link" onClick={() => apply(empty)}>Clear all</button>}
      </form>
      <States loaded={events} empty={(p) => p.data.length === 0}>
        {(p) => (
          <>
            <Table caption={`${p.total} ${p.total === 1 ? 'event' : 'events'}`} rows={p.data} columns={columns} rowKey={(e) => String(e.id)} />
            <Pager page={p.page} total={p.total} pageSize={p.pageSize} links={p.links} onFollow={setLink} />
          </>
        )}
      </States>
    </section>
  );
}

export function AdminPage() {
  usePageTitle('Administration');
  const { has } = useSession();
  if (!has(...MAY.admin)) return <p className="notice forbidden">You may not administer this service: your roles do not allow it.</p>;
  return (
    <section>
      <h1>Administration</h1>
      <Users />
      <TokenManager title="Integration Keys" path="integration-keys" createLabel="Create key" />
      <Audit />
    </section>
  );
}
