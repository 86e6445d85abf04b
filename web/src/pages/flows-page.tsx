// Flows: over a window chosen in the page's URL, each exporter's traffic as a time series drawn in
// SVG (GET /flow/series), the top talkers and conversations (GET /flow/top-talkers, /conversations)
// with the assets at their addresses, and the exporters with their rates and drops.
import { Link, useSearchParams } from 'react-router';
import { api, query, type Page } from '../api';
import { Field, States, Table, text, useLoad, usePageTitle, when } from '../components/ui';
import type { FlowConversation, FlowExporter, FlowSeries, FlowTalker } from '../types';

const WINDOWS = { '1h': 3_600_000, '6h': 6 * 3_600_000, '24h': 24 * 3_600_000, '7d': 7 * 24 * 3_600_000 } as const;
type WindowName = keyof typeof WINDOWS;
const METRICS = ['bytes', 'packets', 'flows'] as const;
type Metric = (typeof METRICS)[number];
const LIMIT = 10;
// Distinct on white and to each other, in order of the series (the busiest first); the last for "other".
const COLOURS = ['#0b5cad', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d', '#4d7c0f', '#1e3a8a'];
const OTHER_COLOUR = '#6b7280';
// IANA's protocol numbers of the traffic flows carry; any other is shown as its number.
const IP_PROTOCOLS: Record<number, string> = {
  1: 'ICMP', 2: 'IGMP', 4: 'IP-in-IP', 6: 'TCP', 17: 'UDP', 41: 'IPv6', 47: 'GRE', 50: 'ESP', 51: 'AH', 58: 'ICMPv6', 88: 'EIGRP', 89: 'OSPF', 103: 'PIM', 112: 'VRRP', 132: 'SCTP',
};
/** An IP protocol by its name, the number beside it for the reader who knows numbers. */
const ipProtocol = (n: number | null) => (n === null ? '—' : IP_PROTOCOLS[n] ? <abbr title={`IP protocol ${n}`}>{IP_PROTOCOLS[n]}</abbr> : `protocol ${n}`);
const STEP_MS: Record<string, number> = { PT1M: 60_000, PT5M: 300_000, PT15M: 900_000, PT1H: 3_600_000, PT3H: 3 * 3_600_000, PT6H: 6 * 3_600_000, P1D: 24 * 3_600_000 };

/** An amount of the metric as a person reads it: bytes in binary units, counts with thousands. */
function amount(value: number, metric: Metric): string {
  if (metric !== 'bytes') return value.toLocaleString();
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = value;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

const rate = (bitsPerSecond: number) => {
  const units = ['bit/s', 'kbit/s', 'Mbit/s', 'Gbit/s'];
  let v = bitsPerSecond;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${u === 0 ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
};

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** The share as a bar beside its figure. */
function Share({ share }: { share: number }) {
  return (
    <span className="share">
      <span className="share-track" aria-hidden="true">
        <span className="share-bar" style={{ width: `${Math.min(100, share * 100)}%` }} />
      </span>
      {percent(share)}
    </span>
  );
}

function Address({ address, asset }: { address: string | null; asset: FlowTalker['asset'] }) {
  if (address === null) return <span className="muted">all others</span>;
  return (
    <>
      {address}
      {asset && <> <Link to={`/assets/${asset.id}`}>{asset.displayName}</Link></>}
    </>
  );
}

const seriesName = (s: FlowSeries['data'][number]) => (s.other ? 'other exporters' : (s.exporter as string));

/** Each exporter's traffic per step as lines over the window, with a legend and the axis's bounds. */
function SeriesChart({ set, metric }: { set: FlowSeries; metric: Metric }) {
  const width = 900;
  const height = 240;
  const pad = { left: 70, right: 10, top: 10, bottom: 28 };
  const from = Date.parse(set.window.from);
  const to = Date.parse(set.window.to);
  const step = STEP_MS[set.step] ?? 60_000;
  const steps = Math.max(1, Math.ceil((to - from) / step));
  const first = Math.floor(from / step) * step;
  // Every step of the window, those without traffic at zero.
  const lines = set.data.map((s) => {
    const by = new Map(s.points.map((p) => [Date.parse(p.at), p[metric]]));
    return { s, values: Array.from({ length: steps }, (_, i) => by.get(first + i * step) ?? 0) };
  });
  const max = Math.max(1, ...lines.flatMap((l) => l.values));
  const x = (i: number) => pad.left + (i / Math.max(1, steps - 1)) * (width - pad.left - pad.right);
  const y = (v: number) => pad.top + (1 - v / max) * (height - pad.top - pad.bottom);
  const label = `${metric} per ${set.step.replace(/^PT?/, '').toLowerCase()} of ${set.data.length} exporter series from ${when(set.window.from)} to ${when(set.window.to)}; the highest step ${amount(max, metric)}`;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label} data-series={set.data.length}>
        <line x1={pad.left} y1={y(0)} x2={width - pad.right} y2={y(0)} className="axis" />
        <line x1={pad.left} y1={pad.top} x2={pad.left} y2={y(0)} className="axis" />
        <text x={pad.left - 6} y={pad.top + 10} textAnchor="end" className="tick">{amount(max, metric)}</text>
        <text x={pad.left - 6} y={y(0)} textAnchor="end" className="tick">0</text>
        <text x={pad.left} y={height - 8} className="tick">{when(set.window.from)}</text>
        <text x={width - pad.right} y={height - 8} textAnchor="end" className="tick">{when(set.window.to)}</text>
        {lines.map(({ s, values }, i) => (
          <polyline
            key={seriesName(s)}
            data-exporter={s.exporter ?? 'other'}
            fill="none"
            stroke={s.other ? OTHER_COLOUR : COLOURS[i % COLOURS.length]}
            strokeWidth={2}
            points={values.map((v, j) => `${x(j).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
          >
            <title>{`${seriesName(s)}: ${amount(s.total[metric], metric)} in the window`}</title>
          </polyline>
        ))}
      </svg>
      <figcaption>
        <ul className="legend">
          {lines.map(({ s }, i) => (
            <li key={seriesName(s)}>
              <span className="swatch" style={{ background: s.other ? OTHER_COLOUR : COLOURS[i % COLOURS.length] }} aria-hidden="true" />
              {seriesName(s)} <span className="muted">{amount(s.total[metric], metric)}</span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

export function FlowsPage() {
  usePageTitle('Flows');
  const [params, setParams] = useSearchParams();
  const windowName = (params.get('window') ?? '1h') in WINDOWS ? ((params.get('window') ?? '1h') as WindowName) : '1h';
  const metric = (METRICS as readonly string[]).includes(params.get('metric') ?? '') ? (params.get('metric') as Metric) : 'bytes';
  // The window ends at the minute the page was asked for, so that its parts read the same window.
  const to = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
  const from = new Date(Date.parse(to) - WINDOWS[windowName]).toISOString();
  const window = query({ from, to, metric, limit: LIMIT });
  const deps = [windowName, metric];
  const series = useLoad(() => api<FlowSeries>(`flow/series${window}`), deps);
  const talkers = useLoad(() => api<{ data: FlowTalker[] }>(`flow/top-talkers${window}`), deps);
  const conversations = useLoad(() => api<{ data: FlowConversation[] }>(`flow/conversations${window}&direction=both`), deps);
  const exporters = useLoad(() => api<Page<FlowExporter>>('flow/exporters?size=50'), []);
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    next.set(key, value);
    setParams(next);
  };

  return (
    <section>
      <h1>Flows</h1>
      <div className="filters">
        <Field label="Window">
          <select value={windowName} onChange={(e) => set('window', e.target.value)}>
            <option value="1h">Last hour</option>
            <option value="6h">Last 6 hours</option>
            <option value="24h">Last 24 hours</option>
            <option value="7d">Last 7 days</option>
          </select>
        </Field>
        <Field label="Measure">
          <select value={metric} onChange={(e) => set('metric', e.target.value)}>
            {METRICS.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </Field>
      </div>

      <h2>Traffic per exporter</h2>
      <States loaded={series} empty={(s) => s.data.length === 0}>
        {(s) => <SeriesChart set={s} metric={metric} />}
      </States>

      <div className="columns">
        <section>
          <h2>Top talkers</h2>
          <States loaded={talkers} empty={(t) => t.data.length === 0}>
            {(t) => (
              <Table
                caption={`Addresses that sent the most ${metric}`}
                rows={t.data}
                rowKey={(r) => String(r.rank ?? 'other')}
                columns={[
                  { key: 'rank', label: '#', render: (r) => text(r.rank) },
                  { key: 'address', label: 'Address', render: (r) => <Address address={r.address} asset={r.asset} /> },
                  { key: 'amount', label: metric, render: (r) => amount(r[metric], metric) },
                  { key: 'share', label: 'Share', render: (r) => <Share share={r.share} /> },
                ]}
              />
            )}
          </States>
        </section>
        <section>
          <h2>Conversations</h2>
          <States loaded={conversations} empty={(c) => c.data.length === 0}>
            {(c) => (
              <Table
                caption={`Pairs of addresses, both directions, by ${metric}`}
                rows={c.data}
                rowKey={(r) => String(r.rank ?? 'other')}
                columns={[
                  { key: 'rank', label: '#', render: (r) => text(r.rank) },
                  { key: 'ends', label: 'Between', render: (r) => (r.source && r.destination ? <><Address address={r.source.address} asset={r.source.asset} /> and <Address address={r.destination.address} asset={r.destination.asset} /></> : <span className="muted">all others</span>) },
                  { key: 'protocol', label: 'Protocol', render: (r) => ipProtocol(r.protocol) },
                  { key: 'amount', label: metric, render: (r) => amount(r[metric], metric) },
                  { key: 'share', label: 'Share', render: (r) => <Share share={r.share} /> },
                ]}
              />
            )}
          </States>
        </section>
      </div>

      <h2>Exporters</h2>
      <States loaded={exporters} empty={(e) => e.data.length === 0}>
        {(e) => (
          <Table
            caption={`${e.total} ${e.total === 1 ? 'exporter' : 'exporters'}; rates over the last five minutes`}
            rows={e.data}
            rowKey={(r) => r.address}
            columns={[
              { key: 'address', label: 'Exporter', render: (r) => <>{r.address}{r.device && <> <Link to={`/assets/${r.device.id}`}>{r.device.displayName}</Link></>}</> },
              { key: 'protocol', label: 'Protocol', render: (r) => text(r.protocol) },
              { key: 'bits', label: 'Traffic', render: (r) => rate(r.rates.bitsPerSecond) },
              { key: 'flows', label: 'Flows/s', render: (r) => r.rates.flowsPerSecond.toFixed(1) },
              { key: 'stored', label: 'Records stored', render: (r) => r.recordsStored.toLocaleString() },
              {
                key: 'drops',
                label: 'Dropped',
                render: (r) => {
                  const dropped = Object.values(r.recordsDropped).reduce((n, v) => n + v, 0);
                  const reasons = Object.entries(r.recordsDropped).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`);
                  return <span className={dropped + r.decodeErrors > 0 ? 'status failed' : undefined}>{dropped.toLocaleString()} records, {r.decodeErrors.toLocaleString()} datagrams{reasons.length > 0 && <span className="muted"> ({reasons.join(', ')})</span>}</span>;
                },
              },
              { key: 'last', label: 'Last heard', render: (r) => when(r.lastDatagramAt) },
            ]}
          />
        )}
      </States>
    </section>
  );
}
