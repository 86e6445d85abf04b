// Assets: free text, filters, columns and sort kept in the page's URL (a view can be bookmarked and
// shared), saved views kept on the server (opened by their link, ?view=<id>), a column chooser over
// the fields the schema lists for the types shown, the filters applied shown as chips that remove
// them, site and environment picked from the values the assets hold, a dense sortable table paged
// by the API's own links, the synthesized types (packages, processes, services, interfaces)
// selectable like any type, and exports of the current filter.
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, apiUrl, query, type ApiError, type Page } from '../api';
import { assetColumns, shownTypes } from '../asset-columns';
import { SavedViews } from '../components/saved-views';
import { ErrorBox, MultiSelect, Pager, States, Table, useLoad, usePageTitle, type Option } from '../components/ui';
import { MAY, useSession } from '../session';
import type { Asset, FieldValues, SavedView, SchemaEntry } from '../types';

const FILTERS = ['q', 'type', 'category', 'status', 'site', 'environment'] as const;
type Filter = (typeof FILTERS)[number];
const FILTER_LABELS: Record<Filter, string> = { q: 'Search', type: 'Type', category: 'Category', status: 'Status', site: 'Site', environment: 'Environment' };
const STATUSES = ['ACTIVE', 'STALE', 'INACTIVE', 'DECOMMISSIONED'];
const PAGE_SIZE = 50;
// What a synthesized type's export selects as its list does (the rest of its filters only show or hide the type).
const ROW_FILTERS = ['q', 'site', 'environment'] as const;

/** The values the assets hold in a field, with their counts, as a pick list's options. */
function useFieldValues(field: 'site' | 'environment'): Option[] {
  const values = useLoad(() => api<FieldValues>(`assets/values${query({ field })}`), [field]);
  return (values.data?.data ?? [])
    .map((v) => ({ value: v.value, label: `${v.value} (${v.count.toLocaleString()})` }))
    .sort((a, b) => a.value.localeCompare(b.value));
}

/**
 * The saved view that `?view=<id>` names, applied once: its filters, columns and sort replace the
 * page's. Any change of the list after that leaves the view (the URL drops it).
 */
function useSavedView(toParams: (view: SavedView) => URLSearchParams) {
  const [params, setParams] = useSearchParams();
  const id = params.get('view');
  const applied = useRef<string | null>(null);
  // The URL the view makes: until the page shows it (a render comes between, with ?view= alone), nothing is read.
  const expected = useRef<string | null>(null);
  useEffect(() => {
    if (expected.current === params.toString()) expected.current = null;
  }, [params]);
  const [view, setView] = useState<SavedView>();
  const [error, setError] = useState<ApiError>();
  useEffect(() => {
    if (!id) {
      applied.current = null;
      setView(undefined);
      setError(undefined);
      return undefined;
    }
    if (applied.current === id) return undefined;
    let live = true;
    api<{ data: SavedView }>(`views/${id}`).then(
      ({ data }) => {
        if (!live) return;
        applied.current = id;
        const next = toParams(data);
        expected.current = next.toString();
        setView(data);
        setError(undefined);
        setParams(next, { replace: true });
      },
      (e: ApiError) => {
        if (!live) return;
        applied.current = id;
        setView(undefined);
        setError(e);
      },
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id]);
  /** A view that was just saved is the one shown, with no second read. */
  const shown = (saved: SavedView) => {
    applied.current = saved.id;
    setView(saved);
  };
  const pending = Boolean(id) && (applied.current !== id || (expected.current !== null && expected.current !== params.toString()));
  return { view: id ? view : undefined, error, pending, shown };
}

export function AssetsPage() {
  usePageTitle('Assets');
  const [params, setParams] = useSearchParams();
  const { has } = useSession();
  const listParam = (key: string) => (params.get(key) ?? '').split(',').filter(Boolean);
  const schema = useLoad(() => api<{ data: SchemaEntry[] }>('schema/asset-types'), []);
  const saved = useSavedView((view) => {
    const next = new URLSearchParams(view.filters);
    if (view.columns.length) next.set('columns', view.columns.join(','));
    if (view.sort) next.set('sort', view.sort);
    next.set('view', view.id);
    return next;
  });
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f)])) as Record<Filter, string | null>;
  const apiQuery = query({
    ...filters,
    sort: params.get('sort'),
    page: params.get('page'),
    cursor: params.get('cursor'),
    size: PAGE_SIZE,
  });
  // Nothing is read while a view is still to be applied: its filters come first.
  const assets = useLoad(() => (saved.pending ? new Promise<Page<Asset>>(() => undefined) : api<Page<Asset>>(`assets${apiQuery}`)), [apiQuery, saved.pending]);
  const sites = useFieldValues('site');
  const environments = useFieldValues('environment');
  const [draft, setDraft] = useState(params.get('q') ?? '');
  const q = params.get('q') ?? '';
  useEffect(() => setDraft(q), [q]);

  /** A change of the list: it leaves a saved view, and a new filter or sort starts again at the first page. */
  const update = (changes: Record<string, string | string[] | undefined>, keepPage = false) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      const v = Array.isArray(value) ? value.join(',') : value;
      if (v) next.set(key, v);
      else next.delete(key);
    }
    next.delete('view');
    if (!keepPage) {
      next.delete('page');
      next.delete('cursor');
    }
    setParams(next);
  };
  /** A link of the list: its page and cursor become this page's. */
  const follow = (link: string) => {
    const from = new URL(link).searchParams;
    const next = new URLSearchParams(params);
    for (const key of ['page', 'cursor']) {
      const v = from.get(key);
      if (v && !(key === 'page' && v === '0')) next.set(key, v);
      else next.delete(key);
    }
    setParams(next);
  };
  const sortParam = params.get('sort') ?? 'displayName,asc';
  const [sortField, sortDir] = sortParam.split(',') as [string, 'asc' | 'desc'];
  const entries = schema.data?.data ?? [];
  const typeOptions = entries.map((t) => ({ value: t.type, label: t.label }));
  const categoryOptions = [...new Map(entries.filter((t) => !t.synthesized).map((t) => [t.category, { value: t.category, label: t.categoryLabel }])).values()];
  const selectedTypes = listParam('type');
  const synthesized = new Set(entries.filter((t) => t.synthesized).map((t) => t.type));
  // Exports hold the rows the list shows: graph types, the assets' export with every filter; one
  // synthesized type, its own (the schema names it). A mix of both has no one export.
  const chosenSynthesized = selectedTypes.filter((t) => synthesized.has(t));
  const exportName = chosenSynthesized.length === 0
    ? 'assets'
    : selectedTypes.length === 1 ? entries.find((t) => t.type === selectedTypes[0])?.export : undefined;
  const exportQuery = query(exportName === 'assets' ? filters : Object.fromEntries(ROW_FILTERS.map((f) => [f, filters[f]])));

  const catalogue = assetColumns(shownTypes(entries, selectedTypes, listParam('category')));
  const chosenColumns = params.has('columns') ? listParam('columns') : undefined;
  const columnIds = chosenColumns ?? catalogue.defaults;
  const columns = catalogue.columns(columnIds);
  const setColumns = (ids: string[] | undefined) => update({ columns: ids && ids.length ? ['displayName', ...ids.filter((id) => id !== 'displayName')] : undefined }, true);

  /** Each value of each filter applied, in words, and the change that removes it. */
  const labelOf = (filter: Filter, value: string) =>
    filter === 'type' ? typeOptions.find((o) => o.value === value)?.label ?? value
      : filter === 'category' ? categoryOptions.find((o) => o.value === value)?.label ?? value
        : value;
  const chips = FILTERS.flatMap((f) =>
    f === 'q'
      ? (q ? [{ key: 'q', text: `${FILTER_LABELS.q}: ${q}`, remove: () => update({ q: undefined }) }] : [])
      : listParam(f).map((v) => ({ key: `${f}=${v}`, text: `${FILTER_LABELS[f]}: ${labelOf(f, v)}`, remove: () => update({ [f]: listParam(f).filter((x) => x !== v) }) })),
  );

  return (
    <section>
      <h1>Assets</h1>
      <SavedViews
        list="ASSETS"
        path="/assets"
        current={saved.view}
        shape={() => ({
          filters: Object.fromEntries(FILTERS.flatMap((f) => (filters[f] ? [[f, filters[f] as string]] : []))),
          columns: chosenColumns ?? [],
          sort: params.get('sort'),
        })}
        onOpen={(id) => setParams(new URLSearchParams({ view: id }))}
        onSaved={(view) => {
          saved.shown(view);
          const next = new URLSearchParams(params);
          next.set('view', view.id);
          setParams(next, { replace: true });
        }}
        onDeleted={() => update({})}
      />
      <ErrorBox error={saved.error} />
      <form
        className="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          update({ q: draft.trim() || undefined });
        }}
      >
        <label className="search">
          <span className="sr-only">Search</span>
          <input type="search" placeholder="Name, host name, FQDN…" value={draft} onChange={(e) => setDraft(e.target.value)} />
        </label>
        <button type="submit">Search</button>
        <MultiSelect label="Type" options={typeOptions} value={selectedTypes} onChange={(v) => update({ type: v })} />
        <MultiSelect label="Category" options={categoryOptions} value={listParam('category')} onChange={(v) => update({ category: v })} />
        <MultiSelect label="Status" options={STATUSES} value={listParam('status')} onChange={(v) => update({ status: v })} />
        <MultiSelect label="Site" options={sites} value={listParam('site')} onChange={(v) => update({ site: v })} other="Another site" />
        <MultiSelect label="Environment" options={environments} value={listParam('environment')} onChange={(v) => update({ environment: v })} other="Another environment" />
        <MultiSelect label="Columns" options={catalogue.available.filter((c) => c.id !== 'displayName').map((c) => ({ value: c.id, label: c.label }))} value={columnIds.filter((id) => id !== 'displayName')} onChange={setColumns} />
        {chosenColumns && <button type="button" onClick={() => setColumns(undefined)}>Default columns</button>}
        {has(...MAY.export) && (
          <span className="exports">
            Export:{' '}
            {exportName ? (
              <>
                <a href={apiUrl(`export/${exportName}.csv${exportQuery}`)} download>CSV</a>{' '}
                <a href={apiUrl(`export/${exportName}.json${exportQuery}`)} download>JSON</a>
              </>
            ) : (
              <span className="muted">one type of packages, processes, services or interfaces, or asset types alone</span>
            )}
          </span>
        )}
      </form>
      {chips.length > 0 && (
        <ul className="chips" aria-label="Filters applied">
          {chips.map((c) => (
            <li key={c.key}>
              <button type="button" className="chip" onClick={c.remove}>
                <span className="sr-only">Remove the filter </span>
                {c.text}
                <span aria-hidden="true"> ×</span>
              </button>
            </li>
          ))}
          <li>
            <button type="button" className="link" onClick={() => update(Object.fromEntries(FILTERS.map((f) => [f, undefined])))}>Clear all filters</button>
          </li>
        </ul>
      )}
      {/* The columns come from the schema: the table waits for it, so that they do not change under the reader. */}
      {schema.data === undefined && !schema.error ? <p className="muted" aria-busy="true">Loading…</p> : (
      <States loaded={assets} empty={(p) => p.data.length === 0}>
        {(page) => (
          <>
            <Table
              caption={`${page.total.toLocaleString()} assets`}
              rows={page.data}
              columns={columns}
              rowKey={(a) => a.id}
              sort={{ field: sortField, direction: sortDir ?? 'asc' }}
              onSort={(field) => update({ sort: `${field},${field === sortField && sortDir !== 'desc' ? 'desc' : 'asc'}` })}
            />
            <Pager page={page.page} total={page.total} pageSize={page.pageSize} links={page.links} onFollow={follow} />
          </>
        )}
      </States>
      )}
    </section>
  );
}
