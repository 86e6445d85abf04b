// A graph drawn with WebGL (sigma) and laid out in a worker (ForceAtlas2): what the topology
// explorer and the Cypher console share. Callers give nodes (with a starting position, or none:
// then a circle) and edges; a click opens a node after a pause, so that a double-click can do
// something else. The graph, renderer and layout are exposed on window[exposeAs] for the tests.
import Graph from 'graphology';
import FA2Layout from 'graphology-layout-forceatlas2/worker';
import { useEffect, useRef } from 'react';
import Sigma from 'sigma';

/** Colours by asset category, also used by legends. */
export const CATEGORY_COLOURS: Record<string, string> = {
  HOST: '#1f77b4', NETWORK_DEVICE: '#d62728', PRINTER: '#8c564b', IOT_DEVICE: '#e377c2', VIRTUALIZATION_MANAGER: '#9467bd', CLUSTER: '#7f7f7f',
  STORAGE: '#bcbd22', NETWORK: '#17becf', SOFTWARE: '#2ca02c', CLOUD: '#ff7f0e', FLOW_EXPORTER: '#393b79', ENDPOINT: '#636363', PROCESS: '#2ca02c', SERVICE: '#2ca02c',
};
export const UNKNOWN_COLOUR = '#999';

export interface CanvasNode {
  id: string;
  label: string;
  color: string;
  size: number;
  x?: number;
  y?: number;
}

export interface CanvasEdge {
  id: string;
  source: string;
  target: string;
  label: string;
  color: string;
  size: number;
}

export function GraphCanvas({ nodes, edges, description, exposeAs, onOpen, onCentre }: {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  /** What the picture shows, for those who cannot see it. */
  description: string;
  exposeAs: string;
  onOpen?: (id: string) => void;
  onCentre?: (id: string) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const graph = new Graph({ multi: true, type: 'mixed' });
    nodes.forEach((n, i) => {
      const angle = (2 * Math.PI * i) / nodes.length;
      graph.addNode(n.id, { label: n.label, color: n.color, size: n.size, x: n.x ?? 10 * Math.cos(angle), y: n.y ?? 10 * Math.sin(angle) });
    });
    for (const e of edges) if (graph.hasNode(e.source) && graph.hasNode(e.target)) graph.addEdgeWithKey(e.id, e.source, e.target, { label: e.label, size: e.size, color: e.color });
    const renderer = new Sigma(graph, container.current as HTMLDivElement, { renderEdgeLabels: false, labelRenderedSizeThreshold: 6, allowInvalidContainer: true });
    const layout = new FA2Layout(graph, { settings: { gravity: 1, scalingRatio: 4, slowDown: 5, barnesHutOptimize: graph.order > 500 } });
    layout.start();
    const stop = setTimeout(() => layout.stop(), Math.min(8000, 1500 + graph.order * 2));
    let clickTimer: ReturnType<typeof setTimeout> | undefined;
    renderer.on('clickNode', ({ node }) => {
      clearTimeout(clickTimer);
      if (onOpen) clickTimer = setTimeout(() => onOpen(node), 300);
    });
    renderer.on('doubleClickNode', ({ node, event }) => {
      clearTimeout(clickTimer);
      if (!onCentre) return;
      event.preventSigmaDefault();
      onCentre(node);
    });
    (window as unknown as Record<string, unknown>)[exposeAs] = { graph, renderer, layout };
    return () => {
      clearTimeout(stop);
      clearTimeout(clickTimer);
      layout.kill();
      renderer.kill();
    };
  }, [nodes, edges, exposeAs, onOpen, onCentre]);
  return <div ref={container} className="graph" role="img" aria-label={description} />;
}
