// The topology explorer: the neighbourhood of an asset at depth 1 to 5, drawn by the shared
// GraphCanvas (WebGL), a colour per asset type with a legend; zoom and pan, click to open an asset,
// double-click to re-centre on it; port-to-port links drawn apart, followed as hops on request; a
// message when the service cut the graph at its node limit; a cable's ports shown under the
// pointer. A list of the assets below the graph
// serves the keyboard.
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, query } from '../api';
import { EDGE_COLOUR, GraphCanvas, kindLegend, LINK_COLOUR, useKindColours, type CanvasEdge, type CanvasNode, type KindColours } from '../components/graph-canvas';
import { States, useLoad, usePageTitle } from '../components/ui';

interface TopologyNode {
  id: string;
  displayName: string;
  assetType: string;
  assetCategory: string;
  status: string;
  depth: number;
}
interface Topology {
  root: TopologyNode;
  nodes: TopologyNode[];
  edges: { id: string; type: string; source: string; target: string }[];
  interfaceLinks: { id: string; sourceAssetId: string; sourcePort: string; targetAssetId: string; targetPort: string; discoveredVia: string; confidence: number }[];
  truncated: boolean;
  nodeCap: number;
}

function GraphView({ topology, colours, onOpen, onCentre }: { topology: Topology; colours: KindColours; onOpen: (id: string) => void; onCentre: (id: string) => void }) {
  const { nodes, edges, legend } = useMemo(() => {
    const byDepth = new Map<number, TopologyNode[]>();
    for (const n of topology.nodes) byDepth.set(n.depth, [...(byDepth.get(n.depth) ?? []), n]);
    // Rings by depth as the starting point of the layout.
    const nodes: CanvasNode[] = [...byDepth].flatMap(([depth, ring]) => ring.map((n, i) => {
      const angle = (2 * Math.PI * i) / ring.length;
      return {
        id: n.id, label: n.displayName, x: depth * 10 * Math.cos(angle), y: depth * 10 * Math.sin(angle),
        size: n.id === topology.root.id ? 12 : Math.max(3, 8 - depth), color: colours(n.assetType),
      };
    }));
    const names = new Map(topology.nodes.map((n) => [n.id, n.displayName]));
    const edges: CanvasEdge[] = [
      ...topology.edges.map((e) => ({ id: e.id, source: e.source, target: e.target, label: e.type, size: 1, color: EDGE_COLOUR })),
      ...topology.interfaceLinks.map((l) => ({
        id: l.id, source: l.sourceAssetId, target: l.targetAssetId, label: `${l.sourcePort} ↔ ${l.targetPort} (${l.discoveredVia})`, size: 3, color: LINK_COLOUR,
        hover: `${names.get(l.sourceAssetId)} ${l.sourcePort} ↔ ${names.get(l.targetAssetId)} ${l.targetPort} (${l.discoveredVia}, ${l.confidence.toFixed(2)})`,
      })),
    ];
    const legend = [...kindLegend(topology.nodes.map((n) => n.assetType), colours), { label: 'port-to-port link', color: LINK_COLOUR, line: true }];
    return { nodes, edges, legend };
  }, [topology, colours]);
  return (
    <GraphCanvas
      nodes={nodes} edges={edges} legend={legend} exposeAs="__topology" onOpen={onOpen} onCentre={onCentre} fileName={`topology-${topology.root.displayName}`}
      description={`Graph of ${topology.nodes.length} assets around ${topology.root.displayName}`}
    />
  );
}

export function TopologyPage() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const depth = Number(params.get('depth') ?? 2);
  const follow = params.get('cables') === '1';
  const limit = Number(params.get('limit') ?? 500);
  const topology = useLoad(
    () => api<{ data: Topology }>(`topology/${id}/neighbors${query({ depth, followInterfaceLinks: follow || undefined, nodeLimit: limit })}`),
    [id, depth, follow, limit],
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
          <input type="checkbox" checked={follow} onChange={(e) => set('cables', e.target.checked ? '1' : undefined)} /> Follow cables (port-to-port links)
        </label>
        <label className="inline">
          <span>At most</span>
          <select value={limit} onChange={(e) => set('limit', e.target.value)}>
            {[100, 500, 2000, 5000].map((l) => <option key={l} value={l}>{l} assets</option>)}
          </select>
        </label>
      </form>
      <States loaded={topology}>
        {({ data: t }) => (
          <>
            <p>
              <Link to={`/assets/${t.root.id}`}>{t.root.displayName}</Link>: {t.nodes.length.toLocaleString()} assets, {t.edges.length.toLocaleString()} relationships,{' '}
              {t.interfaceLinks.length.toLocaleString()} port-to-port links. Click an asset to open it, double-click to centre on it.
            </p>
            {t.truncated && <p className="notice" role="status">The graph was cut at {t.nodeCap.toLocaleString()} assets: the nearest are shown. Raise the limit or lower the depth.</p>}
            <States loaded={colours}>{(c) => <GraphView topology={t} colours={c} onOpen={(node) => navigate(`/assets/${node}`)} onCentre={(node) => navigate(`/topology/${node}?${params.toString()}`)} />}</States>
            <button type="button" className="link" aria-expanded={showList} onClick={() => setShowList(!showList)}>{showList ? 'Hide' : 'Show'} the assets as a list</button>
            {showList && (
              <ul className="plain columns">
                {t.nodes.map((n) => (
                  <li key={n.id}><Link to={`/assets/${n.id}`}>{n.displayName}</Link> <span className="muted">{n.assetType}, {n.depth} hop{n.depth === 1 ? '' : 's'}</span> <Link to={`/topology/${n.id}?${params.toString()}`}>centre</Link></li>
                ))}
              </ul>
            )}
          </>
        )}
      </States>
    </section>
  );
}
