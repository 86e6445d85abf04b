// A graph drawn with WebGL (sigma) and laid out in a worker (ForceAtlas2): what the topology
// explorer and the Cypher console share. Callers give nodes (with a starting position, or none:
// then a circle), edges and the legend's entries; a click opens a node after a pause, so that a
// double-click can do something else; an edge with a hover text shows it under the pointer. Fit to
// view frames the whole graph again; the drawn graph downloads as PNG or SVG (drawn again from the
// renderer's positions, since a WebGL canvas keeps no picture to read back). The graph, renderer
// and layout are exposed on window[exposeAs] for the tests.
import Graph from 'graphology';
import FA2Layout from 'graphology-layout-forceatlas2/worker';
import { useEffect, useRef, useState } from 'react';
import Sigma from 'sigma';
import { api } from '../api';
import type { SchemaEntry } from '../types';
import { useLoad, type Loaded } from './ui';

/**
 * Distinct colours (Tableau 20, the darker of each pair first, its greys replaced, then 16 more):
 * grey is UNKNOWN_COLOUR's, black the cables'.
 */
const PALETTE = [
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#393b79', '#bcbd22', '#17becf',
  '#aec7e8', '#ffbb78', '#98df8a', '#ff9896', '#c5b0d5', '#c49c94', '#f7b6d2', '#637939', '#dbdb8d', '#9edae5',
  '#7f3b08', '#01665e', '#762a83', '#c51b7d', '#4d9221', '#053061', '#b2182b', '#8073ac', '#e08214', '#35978f',
  '#fdb863', '#a6dba0', '#5e3c99', '#d6604d', '#4393c3', '#66a61e',
];
export const UNKNOWN_COLOUR = '#999';
/** A relationship's line, and a cable's (port to port), in every graph. */
export const EDGE_COLOUR = '#aaa';
export const LINK_COLOUR = '#000';

/** A node's colour by its kind: an asset type, or another label (a Cypher result's node that is no asset). */
export type KindColours = (kind: string) => string;

let schemaTypes: Promise<string[]> | undefined;

/** Every asset type in the schema's order, read once; a failed read is tried again by the next graph. */
function assetTypes(): Promise<string[]> {
  schemaTypes ??= api<{ data: SchemaEntry[] }>('schema/asset-types').then(
    ({ data }) => data.map((e) => e.type),
    (error: unknown) => {
      schemaTypes = undefined;
      throw error;
    },
  );
  return schemaTypes;
}

/**
 * The one colour map of every drawn graph (topology, Cypher): an asset type's colour is its place
 * in the schema, so a type looks the same whatever else a graph holds; another kind takes one of the
 * colours no type has, by its name.
 */
export function useKindColours(): Loaded<KindColours> {
  return useLoad(async () => {
    const types = await assetTypes();
    const place = new Map(types.map((t, i) => [t, i]));
    const spare = PALETTE.slice(types.length);
    return (kind: string) => {
      const at = place.get(kind);
      if (at !== undefined) return PALETTE[at % PALETTE.length] as string;
      if (spare.length === 0) return UNKNOWN_COLOUR;
      let hash = 0;
      for (const c of kind) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
      return spare[hash % spare.length] as string;
    };
  }, []);
}

/** The legend's entries of the kinds a graph holds, in name order. */
export function kindLegend(kinds: Iterable<string>, colours: KindColours): LegendEntry[] {
  return [...new Set(kinds)].sort().map((label) => ({ label, color: colours(label) }));
}

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
  /** Shown while the pointer is on the edge (a cable's ports). */
  hover?: string;
}

export interface LegendEntry {
  label: string;
  color: string;
  line?: boolean;
}

interface Scene {
  width: number;
  height: number;
  nodes: { x: number; y: number; r: number; color: string; label: string }[];
  edges: { x1: number; y1: number; x2: number; y2: number; color: string; width: number }[];
}

/** What the renderer shows now, in the viewport's pixels. */
function sceneOf(renderer: Sigma, graph: Graph): Scene {
  const { width, height } = renderer.getDimensions();
  const at = (node: string) => {
    const data = renderer.getNodeDisplayData(node);
    return data ? { ...renderer.framedGraphToViewport(data), r: renderer.scaleSize(data.size), color: data.color, label: data.label ?? '' } : undefined;
  };
  const nodes = graph.nodes().flatMap((n) => {
    const p = at(n);
    return p ? [p] : [];
  });
  const edges = graph.edges().flatMap((e) => {
    const [s, t, data] = [at(graph.source(e)), at(graph.target(e)), renderer.getEdgeDisplayData(e)];
    return s && t && data ? [{ x1: s.x, y1: s.y, x2: t.x, y2: t.y, color: data.color, width: Math.max(1, renderer.scaleSize(data.size)) }] : [];
  });
  return { width, height, nodes, edges };
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const round = (n: number) => Math.round(n * 10) / 10;

function svgOf(scene: Scene): string {
  const edges = scene.edges.map((e) => `<line x1="${round(e.x1)}" y1="${round(e.y1)}" x2="${round(e.x2)}" y2="${round(e.y2)}" stroke="${e.color}" stroke-width="${round(e.width)}"/>`);
  const nodes = scene.nodes.map((n) => `<circle cx="${round(n.x)}" cy="${round(n.y)}" r="${round(n.r)}" fill="${n.color}"><title>${escapeXml(n.label)}</title></circle>`);
  const labels = scene.nodes.map((n) => `<text x="${round(n.x + n.r + 3)}" y="${round(n.y + 4)}">${escapeXml(n.label)}</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${scene.width}" height="${scene.height}" viewBox="0 0 ${scene.width} ${scene.height}">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<g class="edges">${edges.join('')}</g>`,
    `<g class="nodes">${nodes.join('')}</g>`,
    `<g class="labels" font-family="sans-serif" font-size="12" fill="#1b1f24">${labels.join('')}</g>`,
    '</svg>',
  ].join('\n');
}

function pngOf(scene: Scene): Promise<Blob> {
  const canvas = document.createElement('canvas');
  const scale = window.devicePixelRatio || 1;
  canvas.width = Math.round(scene.width * scale);
  canvas.height = Math.round(scene.height * scale);
  const c = canvas.getContext('2d') as CanvasRenderingContext2D;
  c.scale(scale, scale);
  c.fillStyle = '#fff';
  c.fillRect(0, 0, scene.width, scene.height);
  for (const e of scene.edges) {
    c.strokeStyle = e.color;
    c.lineWidth = e.width;
    c.beginPath();
    c.moveTo(e.x1, e.y1);
    c.lineTo(e.x2, e.y2);
    c.stroke();
  }
  for (const n of scene.nodes) {
    c.fillStyle = n.color;
    c.beginPath();
    c.arc(n.x, n.y, n.r, 0, 2 * Math.PI);
    c.fill();
  }
  c.font = '12px sans-serif';
  c.fillStyle = '#1b1f24';
  for (const n of scene.nodes) c.fillText(n.label, n.x + n.r + 3, n.y + 4);
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('no PNG'))), 'image/png'));
}

function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function GraphCanvas({ nodes, edges, legend, description, exposeAs, fileName, onOpen, onCentre }: {
  nodes: CanvasNode[];
  edges: CanvasEdge[];
  legend: LegendEntry[];
  /** What the picture shows, for those who cannot see it. */
  description: string;
  exposeAs: string;
  /** The downloads' name, without its extension. */
  fileName: string;
  onOpen?: (id: string) => void;
  onCentre?: (id: string) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const drawn = useRef<{ graph: Graph; renderer: Sigma }>(undefined);
  const [tip, setTip] = useState<{ text: string; x: number; y: number }>();
  // The handlers by reference: a caller's new functions on its next render must not draw the graph anew.
  const handlers = useRef({ onOpen, onCentre });
  handlers.current = { onOpen, onCentre };
  useEffect(() => {
    const graph = new Graph({ multi: true, type: 'mixed' });
    nodes.forEach((n, i) => {
      const angle = (2 * Math.PI * i) / nodes.length;
      graph.addNode(n.id, { label: n.label, color: n.color, size: n.size, x: n.x ?? 10 * Math.cos(angle), y: n.y ?? 10 * Math.sin(angle) });
    });
    for (const e of edges) if (graph.hasNode(e.source) && graph.hasNode(e.target)) graph.addEdgeWithKey(e.id, e.source, e.target, { label: e.label, size: e.size, color: e.color, hover: e.hover });
    const renderer = new Sigma(graph, container.current as HTMLDivElement, {
      renderEdgeLabels: false, labelRenderedSizeThreshold: 6, allowInvalidContainer: true, enableEdgeEvents: edges.some((e) => e.hover),
    });
    const layout = new FA2Layout(graph, { settings: { gravity: 1, scalingRatio: 4, slowDown: 5, barnesHutOptimize: graph.order > 500 } });
    layout.start();
    const stop = setTimeout(() => layout.stop(), Math.min(8000, 1500 + graph.order * 2));
    let clickTimer: ReturnType<typeof setTimeout> | undefined;
    renderer.on('clickNode', ({ node }) => {
      clearTimeout(clickTimer);
      const open = handlers.current.onOpen;
      if (open) clickTimer = setTimeout(() => open(node), 300);
    });
    renderer.on('doubleClickNode', ({ node, event }) => {
      clearTimeout(clickTimer);
      const centre = handlers.current.onCentre;
      if (!centre) return;
      event.preventSigmaDefault();
      centre(node);
    });
    renderer.on('enterEdge', ({ edge, event }) => {
      const text = graph.getEdgeAttribute(edge, 'hover') as string | undefined;
      if (text) setTip({ text, x: event.x, y: event.y });
    });
    renderer.on('leaveEdge', () => setTip(undefined));
    drawn.current = { graph, renderer };
    (window as unknown as Record<string, unknown>)[exposeAs] = { graph, renderer, layout };
    return () => {
      clearTimeout(stop);
      clearTimeout(clickTimer);
      setTip(undefined);
      layout.kill();
      renderer.kill();
    };
  }, [nodes, edges, exposeAs]);

  const download = async (kind: 'png' | 'svg') => {
    if (!drawn.current) return;
    const scene = sceneOf(drawn.current.renderer, drawn.current.graph);
    save(kind === 'svg' ? new Blob([svgOf(scene)], { type: 'image/svg+xml' }) : await pngOf(scene), `${fileName}.${kind}`);
  };
  return (
    <div className="graph-figure">
      <div className="graph-tools">
        <ul className="legend" aria-label="Legend">
          {legend.map((l) => (
            <li key={l.label}><span className={l.line ? 'swatch line' : 'swatch'} style={{ background: l.color }} /> {l.label}</li>
          ))}
        </ul>
        <span className="actions">
          <button type="button" onClick={() => drawn.current?.renderer.getCamera().animatedReset()}>Fit to view</button>
          <button type="button" onClick={() => void download('png')}>Download PNG</button>
          <button type="button" onClick={() => void download('svg')}>Download SVG</button>
        </span>
      </div>
      <div className="graph-wrap">
        <div ref={container} className="graph" role="img" aria-label={description} />
        {tip && <div className="graph-tip" role="tooltip" style={{ left: tip.x + 12, top: tip.y + 12 }}>{tip.text}</div>}
      </div>
    </div>
  );
}
