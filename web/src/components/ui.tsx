// The pieces every page uses: data loading with its states (loading, empty, error, "you may not"),
// dense tables, pagers that follow the API's links, confirmation, tabs, copy-once secrets.
// Device text is untrusted: everything is rendered as text by React, never as HTML.
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { api, ApiError, query, type Page } from '../api';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): void;
}

/** Loads with `load` whenever `deps` change; the last answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => call === latest.current && setState({ data, loading: false }),
      (error: unknown) => call === latest.current && setState({ error: error instanceof ApiError ? error : new ApiError(0, 'Error', String(error)), loading: false }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The window's title: the page's, then the app's, so that a tab, a bookmark or the history says which page it is. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Asset inventory`;
  }, [title]);
}

/** Calls `reload` every two seconds while `active` (a run in progress). */
export function useRefresh(active: boolean, reload: () => void): void {
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(reload, 2000);
    return () => clearInterval(timer);
  }, [active, reload]);
}

/** Words of a name the API uses (credentialIds: "credential ids"). */
const words = (name: string) => name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

/**
 * A field a problem names (body.addresses.0, or body.settings/AWS/regions/1 as the request
 * validator names a nested one) as a person reads it ("Addresses, item 1"; "Settings, AWS, regions,
 * item 2"): the form's label of the top field where it has one, then the item's number or key.
 */
function fieldName(path: string, labels: Record<string, string> = {}): string {
  const [top = '', ...rest] = path.replace(/^(body|query|path)\./, '').split(/[./]/);
  const head = labels[top] ?? words(top).replace(/^./, (c) => c.toUpperCase());
  return [head, ...rest.map((part) => (/^\d+$/.test(part) ? `item ${Number(part) + 1}` : part))].join(', ');
}

/** A problem, its fields named by `labels` (a form's labels by the API's field names). */
export function ErrorBox({ error, labels }: { error: ApiError | undefined; labels?: Record<string, string> }) {
  if (!error) return null;
  if (error.status === 403) return <p className="notice forbidden" role="alert">You may not do this: your roles do not allow it.</p>;
  // The request validator's detail lists the fields' messages with their raw paths: the list below says it readably.
  const repeatsFields = error.fields.length > 0 && error.fields.every((f) => error.detail.includes(f.message));
  return (
    <div className="notice error" role="alert">
      <strong>{error.title}</strong>
      {error.detail && error.detail !== error.title && !repeatsFields ? <> — {error.detail}</> : null}
      {error.fields.length > 0 && (
        <ul>
          {error.fields.map((f) => (
            <li key={`${f.path}:${f.message}`}>
              <strong>{fieldName(f.path, labels)}</strong>: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Loading, error or empty, or the content. */
export function States<T>({ loaded, empty, children }: { loaded: Loaded<T>; empty?: (data: T) => boolean; children: (data: T) => ReactNode }) {
  if (loaded.error) return <ErrorBox error={loaded.error} />;
  if (loaded.data === undefined) return <p className="muted" aria-busy="true">Loading…</p>;
  if (empty?.(loaded.data)) return <p className="muted" aria-busy={loaded.loading}>Nothing to show.</p>;
  // What was shown stays while the next answer loads (no flicker); aria-busy says it is going.
  return <div className="loaded" aria-busy={loaded.loading}>{children(loaded.data)}</div>;
}

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ReactNode;
  /** The API's sort field, when the list sorts on it. */
  sort?: string;
}

export function Table<T>({ rows, columns, rowKey, sort, onSort, caption }: {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  sort?: { field: string; direction: 'asc' | 'desc' };
  onSort?: (field: string) => void;
  caption?: string;
}) {
  return (
    <div className="table-wrap">
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => {
              const sorted = sort && c.sort === sort.field ? sort.direction : undefined;
              return (
                <th key={c.key} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                  {c.sort && onSort ? (
                    <button type="button" className="link" onClick={() => onSort(c.sort as string)}>
                      {c.label}
                      {sorted ? (sorted === 'asc' ? ' ▲' : ' ▼') : ''}
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.key}>{c.render(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** First, previous, next and last by the list's own links; the page number and total beside them. */
export function Pager({ page, total, pageSize, links, onFollow, label = 'Pages' }: {
  page: number;
  total: number;
  pageSize: number;
  links: { first: string; prev?: string; next?: string; last?: string };
  onFollow: (link: string) => void;
  /** The navigation's name, where a page has more than one pager. */
  label?: string;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" disabled={page === 0} onClick={() => onFollow(links.first)}>« First</button>
      <button type="button" disabled={!links.prev} onClick={() => links.prev && onFollow(links.prev)}>‹ Previous</button>
      <span>
        Page {page + 1} of {pages.toLocaleString()} · {total.toLocaleString()} in all
      </span>
      <button type="button" disabled={!links.next} onClick={() => links.next && onFollow(links.next)}>Next ›</button>
      <button type="button" disabled={!links.last || page === pages - 1} onClick={() => links.last && onFollow(links.last)}>Last »</button>
    </nav>
  );
}

/**
 * A list read a page at a time (`pageSize` rows, the API's bound), again whenever `deps` change:
 * the loaded page, and its pager by the list's own links (none while the list fits one page).
 * `list.reload()` stays on the page shown; `toFirst()` reads the first page again (where a list
 * newest first shows what was just made).
 */
export function usePagedList<T>(path: string, pageSize: number, label: string, deps: unknown[] = []): { list: Loaded<Page<T>>; pager: ReactNode; toFirst: () => void } {
  const [link, setLink] = useState<string>();
  const list = useLoad(() => api<Page<T>>(link ?? `${path}${query({ size: pageSize })}`), [path, link, ...deps]);
  const p = list.data;
  const pager = p && p.total > p.pageSize ? <Pager page={p.page} total={p.total} pageSize={p.pageSize} links={p.links} onFollow={setLink} label={label} /> : null;
  const toFirst = () => {
    setLink(undefined);
    list.reload();
  };
  return { list, pager, toFirst };
}

/** A button that asks before it acts, in a modal dialog. */
export function ConfirmButton({ label, question, onConfirm, danger }: { label: string; question: string; onConfirm: () => Promise<void>; danger?: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={danger ? 'danger' : undefined} onClick={() => setOpen(true)}>{label}</button>
      {open && <ConfirmDialog label={label} question={question} danger={danger} onConfirm={onConfirm} onClose={() => setOpen(false)} />}
    </>
  );
}

/** A modal dialog that asks before an action (shown while mounted): `label` acts, Cancel or Escape closes it. */
export function ConfirmDialog({ label, question, onConfirm, onClose, danger }: { label: string; question: string; onConfirm: () => Promise<void>; onClose: () => void; danger?: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const id = useId();
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby={id} onClose={onClose}>
      <p id={id}>{question}</p>
      <ErrorBox error={error} />
      <div className="actions">
        <button type="button" onClick={() => dialog.current?.close()}>Cancel</button>
        <button
          type="button"
          className={danger ? 'danger' : 'primary'}
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            setError(undefined);
            try {
              await onConfirm();
              dialog.current?.close();
            } catch (e) {
              setError(e instanceof ApiError ? e : new ApiError(0, 'Error', String(e)));
            } finally {
              setBusy(false);
            }
          }}
        >
          {label}
        </button>
      </div>
    </dialog>
  );
}

export function Tabs({ tabs, current, onChange }: { tabs: { id: string; label: string }[]; current: string; onChange: (id: string) => void }) {
  return (
    <div role="tablist" className="tabs">
      {tabs.map((t) => (
        <button key={t.id} type="button" role="tab" id={`tab-${t.id}`} aria-selected={t.id === current} aria-controls={`panel-${t.id}`} onClick={() => onChange(t.id)}>
          {t.label}
        </button>
      ))}
    </div>
  );
}

/** A secret shown once (a new key or token), with a copy button; it is gone when the box closes. */
export function ShownOnce({ label, secret, onClose }: { label: string; secret: string; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="notice secret" role="status">
      <p>{label} It is shown now and never again.</p>
      <code className="secret-value">{secret}</code>
      <div className="actions">
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(secret).catch(() => undefined);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onClose}>Done</button>
      </div>
    </div>
  );
}

export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

export interface Option {
  value: string;
  label: string;
}

/**
 * Several values of a list, as a dropdown of check boxes (each option its value, or a value with a
 * label). With `other`, a text field below them adds a value the list lacks when Enter is pressed.
 */
export function MultiSelect({ label, options, value, onChange, other }: {
  label: string;
  options: (string | Option)[];
  value: string[];
  onChange: (value: string[]) => void;
  other?: string;
}) {
  const [typed, setTyped] = useState('');
  const listed = options.map((o) => (typeof o === 'string' ? { value: o, label: o } : o));
  // A value chosen that the list lacks (typed, or beyond a capped list) stays shown, and can be unticked.
  const all = [...listed, ...value.filter((v) => !listed.some((o) => o.value === v)).map((v) => ({ value: v, label: v }))];
  return (
    <details className="multi">
      <summary>
        {label}
        {value.length ? ` (${value.length})` : ''}
      </summary>
      <fieldset>
        <legend className="sr-only">{label}</legend>
        {all.map((o) => (
          <label key={o.value}>
            <input type="checkbox" checked={value.includes(o.value)} onChange={(e) => onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))} />
            {o.label}
          </label>
        ))}
        {other && (
          <input
            aria-label={other}
            placeholder={`${other}, then Enter`}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            onKeyDown={(e) => {
              if (e.key !== 'Enter') return;
              // Not the search form's submit: this field applies its own value.
              e.preventDefault();
              const v = typed.trim();
              if (v && !value.includes(v)) onChange([...value, v]);
              setTyped('');
            }}
          />
        )}
      </fieldset>
    </details>
  );
}

/** A datetime-local field's value (local time) as an instant, or nothing. */
export const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);
/** An instant as a datetime-local field shows it (local time, to the minute or the second). */
export const localTime = (iso: string | undefined, to: 'minute' | 'second' = 'minute') => {
  const d = new Date(iso ?? '');
  return Number.isNaN(d.getTime()) ? '' : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, to === 'minute' ? 16 : 19);
};
export const when = (iso: unknown) => (typeof iso === 'string' && iso ? new Date(iso).toLocaleString() : '—');
export const text = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value));
