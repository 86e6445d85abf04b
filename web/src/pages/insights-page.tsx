// Insights: the feeds the service lists (GET /insights), one chosen in the page's URL with its
// parameters, and its rows: rank, the assets each names (links to their pages) and the evidence.
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, query } from '../api';
import { Field, instant, localTime, States, Table, text, useLoad, usePageTitle, when } from '../components/ui';
import type { InsightFeed, InsightResult, InsightRow } from '../types';

const LIMIT = 50;

/** An evidence value as text: instants in local time, lists joined. */
function shown(key: string, value: unknown): string {
  if (/At$/.test(key)) return when(value);
  if (Array.isArray(value)) return value.join(', ');
  return text(value);
}

function Evidence({ evidence }: { evidence: Record<string, unknown> }) {
  return (
    <dl className="evidence">
      {Object.entries(evidence).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{shown(k, v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function FeedRows({ feed, params }: { feed: InsightFeed; params: URLSearchParams }) {
  const apiQuery = query({ ...Object.fromEntries(feed.parameters.map((p) => [p.name, params.get(p.name)])), limit: params.get('limit') ?? LIMIT });
  const result = useLoad(() => api<InsightResult>(`insights/${feed.name}${apiQuery}`), [feed.name, apiQuery]);
  return (
    <States loaded={result} empty={(r) => r.data.length === 0}>
      {(r) => (
        <Table
          caption={`${r.data.length} ${r.data.length === 1 ? 'finding' : 'findings'}${r.capped ? ` (the first ${r.limit}; more were left out)` : ''}`}
          rows={r.data}
          rowKey={(row: InsightRow) => String(row.rank)}
          columns={[
            { key: 'rank', label: '#', render: (row) => row.rank },
            {
              key: 'assets',
              label: 'Assets',
              render: (row) => (
                <ul className="plain">
                  {row.assets.map((a) => (
                    <li key={a.id}>
                      <Link to={`/assets/${a.id}`}>{a.displayName}</Link> <span className="muted">{a.assetType}</span>
                    </li>
                  ))}
                </ul>
              ),
            },
            { key: 'evidence', label: 'Evidence', render: (row) => <Evidence evidence={row.evidence} /> },
          ]}
        />
      )}
    </States>
  );
}

function FeedParameters({ feed, params, onApply }: { feed: InsightFeed; params: URLSearchParams; onApply: (values: Record<string, string>) => void }) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(feed.parameters.map((p) => {
    const sent = params.get(p.name) ?? '';
    return [p.name, p.type === 'date-time' && sent ? localTime(sent) : sent];
  })));
  if (feed.parameters.length === 0) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // A date-time input gives local time without a zone: the API wants an instant.
    onApply(Object.fromEntries(feed.parameters.map((p) => [p.name, p.type === 'date-time' ? (instant(values[p.name] ?? '') ?? '') : (values[p.name] ?? '')])));
  };
  return (
    <form className="filters" onSubmit={submit}>
      {feed.parameters.map((p) => (
        <Field key={p.name} label={p.name}>
          <input
            type={p.type === 'integer' ? 'number' : 'datetime-local'}
            min={p.minimum}
            max={p.maximum}
            value={values[p.name]}
            placeholder={p.type === 'integer' ? String(p.default) : ''}
            title={p.description}
            onChange={(e) => setValues({ ...values, [p.name]: e.target.value })}
          />
        </Field>
      ))}
      <button type="submit">Apply</button>
    </form>
  );
}

export function InsightsPage() {
  usePageTitle('Insights');
  const [params, setParams] = useSearchParams();
  const feeds = useLoad(() => api<{ data: InsightFeed[] }>('insights'), []);
  const chosen = params.get('feed');
  return (
    <section>
      <h1>Insights</h1>
      <States loaded={feeds}>
        {({ data }) => {
          const feed = data.find((f) => f.name === chosen);
          return (
            <div className="insights">
              <nav aria-label="Insight feeds">
                <ul className="plain">
                  {data.map((f) => (
                    <li key={f.name}>
                      <Link to={`?feed=${f.name}`} aria-current={f.name === chosen ? 'page' : undefined}>{f.title}</Link>
                    </li>
                  ))}
                </ul>
              </nav>
              <div>
                {feed ? (
                  <>
                    <h2>{feed.title}</h2>
                    <p>{feed.description}</p>
                    <FeedParameters key={feed.name} feed={feed} params={params} onApply={(values) => setParams(new URLSearchParams({ feed: feed.name, ...Object.fromEntries(Object.entries(values).filter(([, v]) => v)) }))} />
                    <FeedRows feed={feed} params={params} />
                  </>
                ) : (
                  <p className="muted">Choose a feed.</p>
                )}
              </div>
            </div>
          );
        }}
      </States>
    </section>
  );
}
