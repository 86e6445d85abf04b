// One discovery run: live status and a progress bar while it runs (and a cancel for those
// allowed), a link to its target's runs, the summary, the errors by
// host, method and stage, the hosts and the identity rule that matched each, its chunks and who
// ran each (a central worker or a remote scanner), the diagnosis of a failed run (with a refresh
// for those allowed) and the delivery of its alert.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, ApiError } from '../api';
import { ConfirmButton, ErrorBox, States, Table, text, useLoad, usePagedList, usePageTitle, useRefresh, when, type Column } from '../components/ui';
import { MAY, useSession } from '../session';
import type { Run, RunAlert, RunChunk, RunHost } from '../types';
import { Progress } from './discovery-page';

interface Diagnosis { status: string; summary?: string; likelyCauses?: string[]; recommendedActions?: string[]; confidence?: string; model?: string; createdAt?: string; reason?: string }

type RunError = NonNullable<Run['errors']>[number];

const ALERT_STATES: Record<RunAlert['status'], string> = {
  NONE: 'No alert was raised for this run.',
  PENDING: 'Alert pending',
  DELIVERED: 'Alert delivered',
  FAILED: 'Alert not delivered',
};

function DiagnosisView({ runId, failed }: { runId: string; failed: boolean }) {
  const { has } = useSession();
  const diagnosis = useLoad(() => api<{ data: Diagnosis }>(`runs/${runId}/diagnosis`), [runId]);
  // A failed run is diagnosed by a job after it ends: asked again until one is there.
  useRefresh(diagnosis.data?.data.status === 'NONE', diagnosis.reload);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="diagnosis">
      <h2 id="diagnosis">Diagnosis</h2>
      <States loaded={diagnosis}>
        {({ data: d }) => (
          <div className="diagnosis">
            <p>Status: <strong>{d.status}</strong>{d.model ? <span className="muted"> · {d.model}, {when(d.createdAt)}</span> : null}</p>
            {d.summary && <p>{d.summary}</p>}
            {d.reason && <p className="muted">{d.reason}</p>}
            {d.likelyCauses?.length ? (<><h3>Likely causes</h3><ol>{d.likelyCauses.map((c) => <li key={c}>{c}</li>)}</ol></>) : null}
            {d.recommendedActions?.length ? (<><h3>What to do</h3><ol>{d.recommendedActions.map((c) => <li key={c}>{c}</li>)}</ol></>) : null}
            {d.confidence && <p className="muted">Confidence: {d.confidence}</p>}
          </div>
        )}
      </States>
      <ErrorBox error={error} />
      {failed && has(...MAY.discovery) && (
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            setError(undefined);
            try {
              await api(`runs/${runId}/diagnosis`, { method: 'POST' });
              diagnosis.reload();
            } catch (err) {
              setError(err as ApiError);
            } finally {
              setBusy(false);
            }
          }}
        >
          Refresh the diagnosis
        </button>
      )}
    </section>
  );
}

const RUN_PAGE = 50;

/** A page of one of a run's lists (its hosts, its chunks), read again as the run moves on. */
function RunList<T>({ path, label, version, columns, rowKey }: { path: string; label: string; version: string; columns: Column<T>[]; rowKey: (row: T) => string }) {
  const { list, pager } = usePagedList<T>(path, RUN_PAGE, `Pages of ${label}`, [version]);
  return (
    <States loaded={list} empty={(p) => p.data.length === 0}>
      {(p) => (
        <>
          <Table rows={p.data} columns={columns} rowKey={rowKey} caption={`The run's ${label}: ${p.total.toLocaleString()}`} />
          {pager}
        </>
      )}
    </States>
  );
}

function RanBy({ chunk: { ranBy } }: { chunk: RunChunk }) {
  const { has } = useSession();
  if (!ranBy) return <span className="muted">not yet taken</span>;
  if (ranBy.kind === 'WORKER') return <>worker <code>{ranBy.name}</code></>;
  return <>scanner {has(...MAY.admin) ? <Link to="/scanners">{ranBy.name}</Link> : ranBy.name}</>;
}

const chunkColumns: Column<RunChunk>[] = [
  { key: 'seq', label: '#', render: (c) => c.seq + 1 },
  { key: 'addresses', label: 'Addresses', render: (c) => (c.firstAddress === c.lastAddress ? c.firstAddress : `${c.firstAddress} – ${c.lastAddress}`) },
  { key: 'status', label: 'Status', render: (c) => <span className={`status ${c.status.toLowerCase()}`}>{c.status}</span> },
  { key: 'done', label: 'Done', render: (c) => `${c.done.toLocaleString()} of ${c.size.toLocaleString()}` },
  { key: 'attempts', label: 'Attempts', render: (c) => c.attempts },
  { key: 'ranBy', label: 'Ran by', render: (c) => <RanBy chunk={c} /> },
  { key: 'taken', label: 'Taken', render: (c) => when(c.takenAt) },
  { key: 'finished', label: 'Finished', render: (c) => when(c.finishedAt) },
];

export function RunPage() {
  const { id = '' } = useParams();
  const { has } = useSession();
  const run = useLoad(() => api<{ data: Run }>(`discovery/runs/${id}`), [id]);
  usePageTitle(run.data ? `Run of ${run.data.data.targetName}` : 'Run');
  const alert = useLoad(() => api<{ data: RunAlert }>(`runs/${id}/alert`), [id, run.data?.data.status]);
  const going = run.data ? ['QUEUED', 'RUNNING'].includes(run.data.data.status) : false;
  useRefresh(going, run.reload);
  const errorColumns: Column<RunError>[] = [
    { key: 'address', label: 'Host', render: (e) => text(e.address) },
    { key: 'method', label: 'Method', render: (e) => e.method },
    { key: 'stage', label: 'Stage', render: (e) => e.stage },
    { key: 'code', label: 'Code', render: (e) => <code>{e.code}</code> },
    { key: 'message', label: 'Message', render: (e) => e.message },
  ];
  const hostColumns: Column<RunHost>[] = [
    { key: 'address', label: 'Address', render: (h) => h.address },
    {
      key: 'asset',
      label: 'Asset',
      render: (h) => (
        <>
          <Link to={`/assets/${h.assetId}`}>{h.assetDisplayName ?? h.assetId}</Link>
          {h.created && <span className="muted"> (created by this run)</span>}
        </>
      ),
    },
    { key: 'rule', label: 'Matched by', render: (h) => text(h.matchedBy) },
    { key: 'methods', label: 'Methods', render: (h) => h.methods.join(', ') || '—' },
    { key: 'outcome', label: 'Outcome', render: (h) => h.outcome },
  ];
  return (
    <States loaded={run}>
      {({ data: r }) => {
        const failed = r.status === 'FAILED' || r.status === 'COMPLETED_WITH_ERRORS';
        return (
          <section>
            <h1>Run of {r.targetName}</h1>
            <p>Target: {r.targetId ? <Link to={`/discovery?target=${r.targetId}`}>{r.targetName} and its runs</Link> : <span className="muted">{r.targetName} (deleted)</span>}</p>
            <p className="run-status">
              <span className={`status ${r.status.toLowerCase()}`} data-status={r.status}>{r.status}</span> <Progress run={r} />
              <span className="muted"> · queued {when(r.queuedAt)}, started {when(r.startedAt)}, finished {when(r.finishedAt)}</span>
            </p>
            {going && has(...MAY.discovery) && (
              <p className="actions">
                <ConfirmButton label="Cancel the run" danger question={`Cancel this run of ${r.targetName}? A running scan stops at its next progress report and loads nothing.`}
                  onConfirm={async () => { await api(`discovery/runs/${r.id}/cancel`, { method: 'POST' }); run.reload(); }} />
              </p>
            )}
            {r.failureReason && <p className="notice error">{r.failureReason}</p>}
            <p>Hosts responding {r.summary.hostsResponding}, assets created {r.summary.assetsCreated}, updated {r.summary.assetsUpdated}, errors {r.summary.errors}.</p>
            <h2>Errors</h2>
            {r.errors?.length ? <Table rows={r.errors} columns={errorColumns} rowKey={(e) => `${e.address}-${e.method}-${e.stage}-${e.code}`} /> : <p className="muted">None.</p>}
            <h2>Hosts</h2>
            <RunList path={`discovery/runs/${r.id}/hosts`} label="hosts" version={r.status} columns={hostColumns} rowKey={(h) => h.address} />
            {r.chunks.total > 0 && (
              <>
                <h2>Chunks</h2>
                <p className="muted">{r.chunks.done} done, {r.chunks.running} running, {r.chunks.queued} queued, {r.chunks.failed} failed, {r.chunks.cancelled} cancelled.</p>
                <RunList path={`discovery/runs/${r.id}/chunks`} label="chunks" version={`${r.status} ${r.progress.done}`} columns={chunkColumns} rowKey={(c) => String(c.seq)} />
              </>
            )}
            {failed && <DiagnosisView runId={r.id} failed={failed} />}
            <h2>Alert</h2>
            <States loaded={alert}>
              {({ data: a }) => (
                <p>
                  {ALERT_STATES[a.status]}
                  {a.attempts ? ` after ${a.attempts} attempt${a.attempts === 1 ? '' : 's'}` : ''}
                  {a.lastError ? <span className="muted"> · {a.lastError}</span> : null}
                </p>
              )}
            </States>
          </section>
        );
      }}
    </States>
  );
}
