// The History tab of an asset (GET /assets/{id}/history): its facts, status transitions and
// relationships as they changed, newest first, each with the source that reported it or the actor of
// a lifecycle action; a relationship names its other end as a link. Paged by the API's cursor links
// (older by `next`), filtered by the fields typed (comma-separated, as the API reads them) and a
// time range.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, query, type Page } from '../api';
import type { AssetHistoryEntry } from '../types';
import { instant, States, Table, text, useLoad, when, type Column } from './ui';

const HISTORY_PAGE = 50;

const KIND_LABELS: Record<AssetHistoryEntry['kind'], string> = {
  FACT: 'fact',
  STATUS: 'status',
  RELATIONSHIP_ADDED: 'relationship added',
  RELATIONSHIP_RETIRED: 'relationship retired',
};

/** A fact's value as text: objects and lists as JSON, nothing as a dash. */
const value = (v: unknown) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : text(v));

function Change({ entry }: { entry: AssetHistoryEntry }) {
  const rel = entry.relationship;
  if (rel) {
    const other = rel.otherAsset ? <Link to={`/assets/${rel.otherAsset.id}`}>{rel.otherAsset.displayName ?? rel.otherAsset.id}</Link> : 'an asset no longer kept';
    return rel.direction === 'OUTGOING' ? <>this asset → {other}</> : <>{other} → this asset</>;
  }
  return <>{value(entry.oldValue)} → {value(entry.newValue)}</>;
}

const By = ({ entry }: { entry: AssetHistoryEntry }) => (entry.actor ? <>{entry.actor.name} <span className="muted">({entry.actor.kind.toLowerCase().replace(/_/g, ' ')})</span></> : <>{text(entry.source)}</>);

const columns: Column<AssetHistoryEntry>[] = [
  { key: 'when', label: 'When', render: (e) => when(e.changedAt) },
  { key: 'kind', label: 'Change', render: (e) => KIND_LABELS[e.kind] },
  { key: 'field', label: 'Field', render: (e) => <code>{e.field}</code> },
  { key: 'values', label: 'Old → new', render: (e) => <Change entry={e} /> },
  { key: 'by', label: 'Source or actor', render: (e) => <By entry={e} /> },
];

export function AssetHistory({ id, version }: { id: string; version: number }) {
  const empty = { fields: '', from: '', to: '' };
  const [filter, setFilter] = useState(empty);
  const [applied, setApplied] = useState(empty);
  const [link, setLink] = useState<string>();
  const fields = applied.fields.split(',').map((f) => f.trim()).filter(Boolean);
  const history = useLoad(
    () => api<Page<AssetHistoryEntry>>(link ?? `assets/${id}/history${query({ field: fields, from: instant(applied.from), to: instant(applied.to), size: HISTORY_PAGE })}`),
    [id, applied, link, version],
  );
  const apply = (next: typeof filter) => {
    setLink(undefined);
    setFilter(next);
    setApplied(next);
  };
  const filtered = JSON.stringify(applied) !== JSON.stringify(empty);
  return (
    <>
      <form className="filters" onSubmit={(e) => { e.preventDefault(); apply(filter); }}>
        <label className="inline search">
          <span>Fields</span>
          <input type="search" value={filter.fields} placeholder="hostname, status, HOSTS_VM" onChange={(e) => setFilter({ ...filter, fields: e.target.value })} />
        </label>
        <label className="inline"><span>From</span><input type="datetime-local" step={1} value={filter.from} onChange={(e) => setFilter({ ...filter, from: e.target.value })} /></label>
        <label className="inline"><span>To</span><input type="datetime-local" step={1} value={filter.to} onChange={(e) => setFilter({ ...filter, to: e.target.value })} /></label>
        <button type="submit">Filter</button>
        {filtered && <button type="button" className="link" onClick={() => apply(empty)}>Clear</button>}
      </form>
      <States loaded={history}>
        {(p) => (p.data.length === 0 ? <p className="muted">No changes{filtered ? ' match the filter' : ''}.</p> : (
          <>
            <Table rows={p.data} columns={columns} rowKey={(e) => `${e.changedAt} ${e.kind} ${e.field} ${e.relationship?.id ?? ''} ${e.source ?? ''}`}
              caption={`${p.total.toLocaleString()} changes, newest first`} />
            {(p.links.prev || p.links.next) && (
              <nav className="pager" aria-label="Pages of history">
                <button type="button" disabled={!p.links.prev} onClick={() => setLink(p.links.first)}>« Newest</button>
                <button type="button" disabled={!p.links.prev} onClick={() => p.links.prev && setLink(p.links.prev)}>‹ Newer</button>
                <button type="button" disabled={!p.links.next} onClick={() => p.links.next && setLink(p.links.next)}>Older ›</button>
              </nav>
            )}
          </>
        ))}
      </States>
    </>
  );
}
