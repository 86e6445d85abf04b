// Assets: free text and filters kept in the page's URL (a view can be bookmarked and shared), a
// dense sortable table paged by the API's own links, the synthesized types (packages, processes,
// services, interfaces) selectable like any type, and exports of the current filter.
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, apiUrl, query, type Page } from '../api';
import { MultiSelect, Pager, States, Table, text, useLoad, usePageTitle, when, type Column } from '../components/ui';
import { MAY, useSession } from '../session';
import type { Asset, SchemaEntry } from '../types';

const FILTERS = ['q', 'type', 'category', 'status', 'site', 'environment'] as const;
const STATUSES = ['ACTIVE', 'STALE', 'INACTIVE', 'DECOMMISSIONED'];
const PAGE_SIZE = 50;
// What a synthesized type's export selects as its list does (the rest of its filters only show or hide the type).
const ROW_FILTERS = ['q', 'site', 'environment'] as const;

export function AssetsPage() {
  usePageTitle('Assets');
  const [params, setParams] = useSearchParams();
  const { has } = useSession();
  const listParam = (key: string) => (params.get(key) ?? '').split(',').filter(Boolean);
  const schema = useLoad(() => api<{ data: SchemaEntry[] }>('schema/asset-types'), []);
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f)]));
  const apiQuery = query({
    ...filters,
    sort: params.get('sort'),
    page: params.get('page'),
    cursor: params.get('cursor'),
    size: PAGE_SIZE,
  });
  const assets = useLoad(() => api<Page<Asset>>(`assets${apiQuery}`), [apiQuery]);
  const [draft, setDraft] = useState(params.get('q') ?? '');

  /** A new filter or sort starts again at the first page. */
  const update = (changes: Record<string, string | string[] | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      const v = Array.isArray(value) ? value.join(',') : value;
      if (v) next.set(key, v);
      else next.delete(key);
    }
    next.delete('page');
    next.delete('cursor');
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
  const types = schema.data?.data.map((t) => t.type) ?? [];
  const categories = [...new Set(schema.data?.data.filter((t) => !t.synthesized).map((t) => t.category) ?? [])];
  const selectedTypes = listParam('type');
  const synthesized = new Set(schema.data?.data.filter((t) => t.synthesized).map((t) => t.type) ?? []);
  // Exports hold the rows the list shows: graph types, the assets' export with every filter; one
  // synthesized type, its own (the schema names it). A mix of both has no one export.
  const chosenSynthesized = selectedTypes.filter((t) => synthesized.has(t));
  const exportName = chosenSynthesized.length === 0
    ? 'assets'
    : selectedTypes.length === 1 ? schema.data?.data.find((t) => t.type === selectedTypes[0])?.export : undefined;
  const exportQuery = query(exportName === 'assets' ? filters : Object.fromEntries(ROW_FILTERS.map((f) => [f, filters[f]])));

  const columns: Column<Asset>[] = [
    { key: 'name', label: 'Name', sort: 'displayName', render: (a) => <Link to={`/assets/${a.id}`}>{a.displayName}</Link> },
    { key: 'category', label: 'Type', sort: 'assetCategory', render: (a) => a.assetCategoryLabel },
    { key: 'subtype', label: 'Subtype', sort: 'assetType', render: (a) => a.assetSubtypeLabel },
    { key: 'status', label: 'Status', sort: 'status', render: (a) => <span className={`status ${a.status.toLowerCase()}`}>{a.status}</span> },
    { key: 'site', label: 'Site', sort: 'site', render: (a) => text(a.site) },
    { key: 'environment', label: 'Environment', sort: 'environment', render: (a) => text(a.environment) },
    { key: 'ip', label: 'Addresses', render: (a) => (a.ipAddresses ?? []).slice(0, 2).join(', ') || '—' },
    { key: 'parent', label: 'Parent', render: (a) => (a.parent ? <Link to={`/assets/${a.parent.id}`}>{a.parent.displayName}</Link> : '—') },
    { key: 'scan', label: 'Last scan', render: (a) => text(a.lastScanOutcome) },
    // Not with synthesized types: most of them refuse it, their last sighting being rewritten in place (api.yaml).
    { key: 'seen', label: 'Last seen', sort: selectedTypes.some((t) => synthesized.has(t)) ? undefined : 'lastSeenAt', render: (a) => when(a.lastSeenAt) },
  ];

  return (
    <section>
      <h1>Assets</h1>
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
        <MultiSelect label="Type" options={types} value={selectedTypes} onChange={(v) => update({ type: v })} />
        <MultiSelect label="Category" options={categories} value={listParam('category')} onChange={(v) => update({ category: v })} />
        <MultiSelect label="Status" options={STATUSES} value={listParam('status')} onChange={(v) => update({ status: v })} />
        <label className="inline">
          <span>Site</span>
          <input defaultValue={params.get('site') ?? ''} placeholder="paris,berlin" onBlur={(e) => update({ site: e.target.value.replace(/\s+/g, '') || undefined })} />
        </label>
        <label className="inline">
          <span>Environment</span>
          <input defaultValue={params.get('environment') ?? ''} placeholder="production" onBlur={(e) => update({ environment: e.target.value.replace(/\s+/g, '') || undefined })} />
        </label>
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
    </section>
  );
}
