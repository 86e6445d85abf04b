// The topology explorer: the neighbourhood of an asset at depth 1 to 5, drawn by the shared
// GraphCanvas (WebGL), a colour per asset type with a legend; zoom and pan, click to open an asset,
// double-click to re-centre on it; port-to-port links drawn apart, followed as hops on request; a
// message when the service cut the graph at its node limit; a cable's ports shown under the
// pointer. "As of" draws the neighbourhood at an earlier time (history keeps no port-to-port
// links, so they are not followed then); "compare with" draws the later of the two times with what
// disappeared since the earlier added back, and marks what appeared, disappeared or changed
// (GET /topology/{id}/changes). A list of the assets below the graph serves the keyboard.
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, query } from '../api';
import { EDGE_COLOUR, GraphCanvas, kindLegend, LINK_COLOUR, useKindColours, type CanvasEdge, type CanvasNode, type KindColours, type LegendEntry } from '../components/graph-canvas';
import { instant, localTime, States, useLoad, usePageTitle, when } from '../components/ui';
import type { Topology, TopologyChanges } from '../types';

type TopologyNode = Topology['nodes'][number];
type Change = TopologyChanges['assets'][number]['change'];

/** How a change is drawn: its colour, and the word added to the asset's or relationship's label. */
const CHANGE_STYLE: Record<Change, { color: string; word: string }> = {
  APPEARED: { color: '#1a7f37', word: 'appeared' },
  DISAPPEARED: { color: '#cf222e', word: 'disappeared' },
  CHANGED: { color: '#bf8700', word: 'changed' },
};

/** The later neighbourhood with what disappeared since the earlier added back, each change by id. */
interface Compared {
  changes: TopologyChanges;
  assets: Map<string, TopologyChanges['assets'][number]>;
  edges: Map<string, Change>;
}

function compared(changes: TopologyChanges): Compared {
  return { changes, assets: new Map(changes.assets.map((a) => [a.id, a])), edges: new Map(changes.edges.map((e) => [e.id, e.change])) };
}

/** The nodes drawn: the neighbourhood's, and (comparing) those that disappeared from it, one ring farther out than the farthest. */
function drawnNodes(topology: Topology, diff: Compared | undefined): TopologyNode[] {
  if (!diff) return topology.nodes;
  const shown = new Set(topology.nodes.map((n) => n.id));
  const outer = Math.max(0, ...topology.nodes.map((n) => n.depth)) + 1;
  const gone = diff.changes.assets.filter((a) => a.change === 'DISAPPEARED' && !shown.has(a.id))
    .map((a): TopologyNode => ({ id: a.id, displayName: a.displayName, assetType: a.assetType, assetCategory: a.assetCategory, status: 'DISAPPEARED', depth: outer }));
  return [...topology.nodes, ...gone];
}

function GraphView({ topology, diff, colours, onOpen, onCentre }: { topology: Topology; diff: Compared | undefined; colours: KindColours; onOpen: (id: string) => void; onCentre: (id: string) => void }) {
  const { nodes, edges, legend } = useMemo(() => {
    const all = drawnNodes(topology, diff);
    const byDepth = new Map<number, TopologyNode[]>();
    for (const n of all) byDepth.set(n.depth, [...(byDepth.get(n.depth) ?? []), n]);
    const changeOf = (id: string) => diff?.assets.get(id)?.change;
    // Rings by depth as the starting point of the layout.
    const nodes: CanvasNode[] = [...byDepth].flatMap(([depth, ring]) => ring.map((n, i) => {
      const angle = (2 * Math.PI * i) / ring.length;
      const change = changeOf(n.id);
      return {
        id: n.id, label: change ? `${n.displayName} (${CHANGE_STYLE[change].word})` : n.displayName, x: depth * 10 * Math.cos(angle), y: depth * 10 * Math.sin(angle),
        // A changed asset a little larger, so that its mark shows beside the types' colours.
        size: (n.id === topology.root.id ? 12 : Math.max(3, 8 - depth)) + (change ? 3 : 0), color: change ? CHANGE_STYLE[change].color : colours(n.assetType),
      };
    }));
    const names = new Map(all.map((n) => [n.id, n.displayName]));
    const edgeOf = (e: { id: string; type: string; source: string; target: string }, change: Change | undefined): CanvasEdge => ({
      id: e.id, source: e.source, target: e.target, label: change ? `${e.type} (${CHANGE_STYLE[change].word})` : e.type, size: change ? 3 : 1, color: change ? CHANGE_STYLE[change].color : EDGE_COLOUR,
    });
    const shownEdges = new Set(topology.edges.map((e) => e.id));
    const edges: CanvasEdge[] = [
      ...topology.edges.map((e) => edgeOf(e, diff?.edges.get(e.id))),
      ...(diff?.changes.edges ?? []).filter((e) => e.change === 'DISAPPEARED' && !shownEdges.has(e.id)).map((e) => edgeOf(e, 'DISAPPEARED')),
      ...topology.interfaceLinks.map((l) => ({
        id: l.id, source: l.sourceAssetId, target: l.targetAssetId, label: `${l.sourcePort} ↔ ${l.targetPort} (${l.discoveredVia})`, size: 3, color: LINK_COLOUR,
        hover: `${names.get(l.sourceAssetId)} ${l.sourcePort} ↔ ${names.get(l.targetAssetId)} ${l.targetPort} (${l.discoveredVia}, ${l.confidence.toFixed(2)})`,
      })),
    ];
    const unchanged = all.filter((n) => !changeOf(n.id)).map((n) => n.assetType);
    const legend: LegendEntry[] = [
      ...kindLegend(unchanged, colours),
      ...(topology.interfaceLinks.length || !diff ? [{ label: 'port-to-port link', color: LINK_COLOUR, line: true }] : []),
      ...(diff ? Object.values(CHANGE_STYLE).map((c) => ({ label: c.word, color: c.color })) : []),
    ];
    return { nodes, edges, legend };
  }, [topology, diff, colours]);
  return (
    <GraphCanvas
      nodes={nodes} edges={edges} legend={legend} exposeAs="__topology" onOpen={onOpen} onCentre={onCentre} fileName={`topology-${topology.root.displayName}`}
      description={`Graph of ${nodes.length} assets around ${topology.root.displayName}${diff ? ', what changed marked' : ''}`}
    />
  );
}

/** What changed between the two times, in words (the graph's marks, for those who cannot see them). */
function ChangeList({ diff, nodes }: { diff: Compared; nodes: TopologyNode[] }) {
  const { changes } = diff;
  const names = new Map(nodes.map((n) => [n.id, n.displayName]));
  const name = (id: string) => names.get(id) ?? 'an asset';
  if (changes.assets.length === 0 && changes.edges.length === 0) return <p role="status">Nothing changed around it between {when(changes.from)} and {when(changes.to)}.</p>;
  return (
    <section aria-label="What changed">
      <h2>Changes between {when(changes.from)} and {when(changes.to)}</h2>
      {changes.truncated && <p className="notice" role="status">A neighbourhood was cut at its node limit: changes beyond it are not listed.</p>}
      <ul className="plain columns">
        {changes.assets.map((a) => (
          <li key={a.id} className={`change ${a.change.toLowerCase()}`}>
            <strong>{CHANGE_STYLE[a.change].word}</strong> <Link to={`/assets/${a.id}`}>{a.displayName}</Link> <span className="muted">{a.assetType}{a.changedFields.length ? `: ${a.changedFields.join(', ')}` : ''}</span>
          </li>
        ))}
        {changes.edges.map((e) => (
          <li key={e.id} className={`change ${e.change.toLowerCase()}`}>
            <strong>{CHANGE_STYLE[e.change].word}</strong> {e.type} <span className="muted">{name(e.source)} → {name(e.target)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The earlier and the later of two times (no time: now); the later undefined when it is now. */
function span(asOf: string | undefined, compare: string): { from: string; to: string | undefined } {
  if (!asOf) return { from: compare, to: undefined };
  return Date.parse(asOf) <= Date.parse(compare) ? { from: asOf, to: compare } : { from: compare, to: asOf };
}

export function TopologyPage() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const depth = Number(params.get('depth') ?? 2);
  const limit = Number(params.get('limit') ?? 500);
  const asOf = params.get('at') ?? undefined;
  const compare = params.get('compare') ?? undefined;
  // The graph drawn is as of the later time when comparing, so that what disappeared is added back to it.
  const times = compare ? span(asOf, compare) : undefined;
  const drawnAt = times ? times.to : asOf;
  const past = Boolean(asOf || compare);
  // History keeps no port-to-port links: the API refuses to follow them with a time.
  const follow = params.get('cables') === '1' && !past;
  const topology = useLoad(
    () => api<{ data: Topology }>(`topology/${id}/neighbors${query({ depth, followInterfaceLinks: follow || undefined, nodeLimit: limit, at: drawnAt })}`),
    [id, depth, follow, limit, drawnAt],
  );
  const changes = useLoad(
    async () => (times ? compared((await api<{ data: TopologyChanges }>(`topology/${id}/changes${query({ depth, nodeLimit: limit, from: times.from, to: times.to })}`)).data) : undefined),
    [id, depth, limit, times?.from, times?.to],
  );
  const colours = useKindColours();
  usePageTitle(topology.data ? `Topology of ${topology.data.data.root.displayName}` : 'Topology');
  const [showList, setShowList] = useState(false);
  const set = (key: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  const diff = times ? changes.data : undefined;
  return (
    <section>
      <h1>Topology</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label className="inline">
          <span>Depth</span>
          <select value={depth} onChange={(e) => set('depth', e.target.value)}>
            {[1, 2, 3, 4, 5].map((d) => <option key={d} value={d}>{d}</option>)}
          </select>
        </label>
        <label className="inline">
          <input type="checkbox" checked={follow} disabled={past} aria-describedby={past ? 'cables-past' : undefined} onChange={(e) => set('cables', e.target.checked ? '1' : undefined)} /> Follow cables (port-to-port links)
        </label>
        {past && <span id="cables-past" className="muted">(not in the past: history keeps no cables)</span>}
        <label className="inline">
          <span>At most</span>
          <select value={limit} onChange={(e) => set('limit', e.target.value)}>
            {[100, 500, 2000, 5000].map((l) => <option key={l} value={l}>{l} assets</option>)}
          </select>
        </label>
        <label className="inline">
          <span>As of</span>
          <input type="datetime-local" step={1} value={localTime(asOf, 'second')} onChange={(e) => set('at', instant(e.target.value))} />
        </label>
        {asOf && <button type="button" className="link" onClick={() => set('at', undefined)}>Now</button>}
        <label className="inline">
          <span>Compare with</span>
          <input type="datetime-local" step={1} value={localTime(compare, 'second')} onChange={(e) => set('compare', instant(e.target.value))} />
        </label>
        {compare && <button type="button" className="link" onClick={() => set('compare', undefined)}>Stop comparing</button>}
      </form>
      <States loaded={topology}>
        {({ data: t }) => (
          <>
            <p>
              <Link to={`/assets/${t.root.id}`}>{t.root.displayName}</Link>{drawnAt ? ` as of ${when(drawnAt)}` : ' now'}: {t.nodes.length.toLocaleString()} assets, {t.edges.length.toLocaleString()} relationships,{' '}
              {t.interfaceLinks.length.toLocaleString()} port-to-port links. Click an asset to open it, double-click to centre on it.
            </p>
            {t.truncated && <p className="notice" role="status">The graph was cut at {t.nodeCap.toLocaleString()} assets: the nearest are shown. Raise the limit or lower the depth.</p>}
            {times && <States loaded={changes}>{(d) => (d ? <ChangeList diff={d} nodes={drawnNodes(t, d)} /> : null)}</States>}
            {/* While comparing, drawn once the changes are in: the graph is not drawn twice. */}
            {(!times || diff) && (
              <States loaded={colours}>{(c) => <GraphView topology={t} diff={diff} colours={c} onOpen={(node) => navigate(`/assets/${node}`)} onCentre={(node) => navigate(`/topology/${node}?${params.toString()}`)} />}</States>
            )}
            <button type="button" className="link" aria-expanded={showList} onClick={() => setShowList(!showList)}>{showList ? 'Hide' : 'Show'} the assets as a list</button>
            {showList && (
              <ul className="plain columns">
                {drawnNodes(t, diff).map((n) => {
                  const change = diff?.assets.get(n.id)?.change;
                  return (
                    <li key={n.id}><Link to={`/assets/${n.id}`}>{n.displayName}</Link> <span className="muted">{n.assetType}, {change === 'DISAPPEARED' ? 'disappeared' : `${n.depth} hop${n.depth === 1 ? '' : 's'}${change ? `, ${CHANGE_STYLE[change].word}` : ''}`}</span> <Link to={`/topology/${n.id}?${params.toString()}`}>centre</Link></li>
                  );
                })}
              </ul>
            )}
          </>
        )}
      </States>
    </section>
  );
}
