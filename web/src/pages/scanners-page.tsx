// Remote scanners, for administrators (GET/POST/DELETE /scanners): each with its group, the start of
// its token, its last contact, the version it reported and the chunks it ended; a new one's token
// (svcs_) shown once with a copy button, as integration keys are; revoked after a confirmation.
import { useState } from 'react';
import { api, ApiError } from '../api';
import { ConfirmButton, ErrorBox, Field, ShownOnce, States, Table, text, usePagedList, usePageTitle, when, type Column } from '../components/ui';
import { MAY, useSession } from '../session';
import type { CreatedScanner, Scanner } from '../types';

const SCANNERS_PAGE = 50;

function Scanners() {
  const { list: scanners, pager, toFirst } = usePagedList<Scanner>('scanners', SCANNERS_PAGE, 'Pages of scanners');
  const [form, setForm] = useState({ name: '', group: '' });
  const [created, setCreated] = useState<CreatedScanner>();
  const [error, setError] = useState<ApiError>();
  const columns: Column<Scanner>[] = [
    { key: 'name', label: 'Name', render: (s) => s.name },
    { key: 'group', label: 'Group', render: (s) => <code>{s.group}</code> },
    { key: 'hint', label: 'Token begins with', render: (s) => <code>{s.hint}</code> },
    { key: 'status', label: 'Status', render: (s) => <span className={`status ${s.status === 'ACTIVE' ? 'active' : 'inactive'}`}>{s.status}</span> },
    { key: 'contact', label: 'Last contact', render: (s) => when(s.lastContactAt) },
    { key: 'version', label: 'Version', render: (s) => text(s.version) },
    { key: 'chunks', label: 'Chunks done', render: (s) => s.chunksDone.toLocaleString() },
    { key: 'created', label: 'Created', render: (s) => when(s.createdAt) },
    {
      key: 'revoke',
      label: 'Actions',
      render: (s) => (s.status === 'ACTIVE'
        ? <ConfirmButton label="Revoke" danger question={`Revoke ${s.name}? Its next request is refused and it stops; a chunk it holds goes back to its group's queue.`} onConfirm={async () => { await api(`scanners/${s.id}`, { method: 'DELETE' }); scanners.reload(); }} />
        : `revoked ${when(s.revokedAt)}`),
    },
  ];
  return (
    <>
      {created ? (
        <ShownOnce label={`The token of ${created.name}: give it to the scanner as SERVICE_SCANNER_TOKEN.`} secret={created.token} onClose={() => setCreated(undefined)} />
      ) : (
        <form
          className="card inline-form"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(undefined);
            try {
              const { data } = await api<{ data: CreatedScanner }>('scanners', { method: 'POST', body: form });
              setForm({ name: '', group: '' });
              setCreated(data);
              toFirst();
            } catch (err) {
              setError(err as ApiError);
            }
          }}
        >
          <Field label="Name"><input required maxLength={100} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} /></Field>
          <Field label="Group (the targets' scanner group)"><input required maxLength={64} value={form.group} onChange={(e) => setForm({ ...form, group: e.target.value })} /></Field>
          <button type="submit" className="primary">Create scanner</button>
        </form>
      )}
      <ErrorBox error={error} labels={{ name: 'Name', group: 'Group' }} />
      <States loaded={scanners}>
        {(p) => (p.data.length === 0 ? <p className="muted">No scanners yet.</p> : (
          <>
            <Table rows={p.data} columns={columns} rowKey={(s) => s.id} caption={`${p.total.toLocaleString()} scanners, newest first`} />
            {pager}
          </>
        ))}
      </States>
    </>
  );
}

export function ScannersPage() {
  usePageTitle('Scanners');
  const { has } = useSession();
  if (!has(...MAY.admin)) return <p className="notice forbidden">You may not manage scanners: your roles do not allow it.</p>;
  return (
    <section>
      <h1>Remote scanners</h1>
      <p className="muted">A remote scanner runs discovery in a network the service cannot reach, for the targets whose scanner group is its group.</p>
      <Scanners />
    </section>
  );
}
