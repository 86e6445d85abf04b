// The Cypher console: an editor (Ctrl+Enter runs) with the caller's history (kept in this
// browser) and the example queries of docs/graph-model.md, the rows as a table and, when they
// hold nodes and relationships, as a graph drawn by the shared GraphCanvas. Queries go to
// POST /graph/query, which refuses anything but reads.
import { useCallback, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import graphModel from '../../../docs/graph-model.md?raw';
import { api, ApiError } from '../api';
import { EDGE_COLOUR, GraphCanvas, kindLegend, useKindColours, type CanvasEdge, type CanvasNode, type KindColours } from '../components/graph-canvas';
import { ErrorBox, Field, States, Tabs, usePageTitle } from '../components/ui';

interface GraphNode { id: string; labels: string[]; properties: Record<string, unknown> }
interface GraphRelationship { id: string; type: string; startNode: string; endNode: string; properties: Record<string, unknown> }
interface QueryResult {
  columns: string[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  limit: number;
  graph: { nodes: GraphNode[]; relationships: GraphRelationship[] };
}

const HISTORY_KEY = 'cypher-history';
const HISTORY_SIZE = 20;
const LIMITS = [100, 1000, 10000];

/** The numbered example queries of the graph model, one source for the docs and this page. */
export const EXAMPLES: { title: string; query: string }[] = [...graphModel.slice(graphModel.indexOf('## Ten useful queries')).matchAll(/^\s*\d+\.\s+([\s\S]*?):\n\s*```cypher\n([\s\S]*?)```/gm)].map((m) => ({
  title: (m[1] as string).replace(/\s*\([\s\S]*\)/, '').replace(/\s+/g, ' ').trim(),
  query: (m[2] as string).split('\n').map((line) => line.trim()).join('\n').trim(),
}));

function loadHistory(): string[] {
  try {
    const stored = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]') as unknown;
    return Array.isArray(stored) ? stored.filter((q): q is string => typeof q === 'string') : [];
  } catch {
    return [];
  }
}

/** A cell as text: a node as (:Label name), a relationship as [:TYPE], anything else as JSON. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'object') return String(value);
  const tagged = value as { $kind?: string; labels?: string[]; type?: string; properties?: Record<string, unknown>; nodes?: string[] };
  if (tagged.$kind === 'node') return `(:${(tagged.labels ?? []).join(':')} ${String(tagged.properties?.displayName ?? tagged.properties?.id ?? '')})`.replace(/ \)$/, ')');
  if (tagged.$kind === 'relationship') return `[:${tagged.type}]`;
  if (tagged.$kind === 'path') return `path of ${(tagged.nodes ?? []).length} nodes`;
  return JSON.stringify(value);
}

function ResultGraph({ result, colours }: { result: QueryResult; colours: KindColours }) {
  const navigate = useNavigate();
  const { nodes, edges, legend } = useMemo(() => {
    // An asset by its type, any other node by its first label.
    const kind = (n: GraphNode) => String(n.properties.assetType ?? n.labels[0] ?? 'node');
    const nodes: CanvasNode[] = result.graph.nodes.map((n) => ({
      id: n.id,
      label: String(n.properties.displayName ?? n.labels[0] ?? n.id),
      color: colours(kind(n)),
      size: 6,
    }));
    const edges: CanvasEdge[] = result.graph.relationships.map((r) => ({ id: r.id, source: r.startNode, target: r.endNode, label: r.type, size: 1, color: EDGE_COLOUR, hover: r.type }));
    return { nodes, edges, legend: kindLegend(result.graph.nodes.map(kind), colours) };
  }, [result, colours]);
  const assetIds = useMemo(() => new Map(result.graph.nodes.map((n) => [n.id, n.properties.id])), [result]);
  const open = useCallback((node: string) => {
    const assetId = assetIds.get(node);
    if (typeof assetId === 'string') navigate(`/assets/${assetId}`);
  }, [assetIds, navigate]);
  return <GraphCanvas nodes={nodes} edges={edges} legend={legend} exposeAs="__cypherGraph" fileName="cypher-graph" onOpen={open} description={`Graph of ${nodes.length} nodes and ${edges.length} relationships of the result`} />;
}

export function CypherPage() {
  usePageTitle('Cypher');
  const [text, setText] = useState(EXAMPLES[0]?.query ?? 'MATCH (a:Asset) RETURN a LIMIT 25');
  const [parameters, setParameters] = useState('');
  const [limit, setLimit] = useState(1000);
  const [history, setHistory] = useState<string[]>(loadHistory);
  const [result, setResult] = useState<QueryResult>();
  const [error, setError] = useState<ApiError>();
  const [running, setRunning] = useState(false);
  const [view, setView] = useState('table');
  const colours = useKindColours();

  const run = async () => {
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = parameters.trim() ? (JSON.parse(parameters) as Record<string, unknown>) : undefined;
    } catch {
      setError(new ApiError(400, 'Bad Request', 'The parameters are not a JSON object.'));
      return;
    }
    setRunning(true);
    setError(undefined);
    const next = [text, ...history.filter((q) => q !== text)].slice(0, HISTORY_SIZE);
    setHistory(next);
    localStorage.setItem(HISTORY_KEY, JSON.stringify(next));
    try {
      const { data } = await api<{ data: QueryResult }>('graph/query', { method: 'POST', body: { query: text, limit, ...(parsed ? { parameters: parsed } : {}) } });
      setResult(data);
      setView(data.graph.nodes.length > 0 ? 'graph' : 'table');
    } catch (e) {
      setResult(undefined);
      setError(e as ApiError);
    } finally {
      setRunning(false);
    }
  };

  return (
    <section>
      <h1>Cypher</h1>
      <p className="muted">Read-only queries on the inventory graph (see the graph model in docs/graph-model.md). Ctrl+Enter runs the query.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <Field label="Example queries">
          <select value="" onChange={(e) => e.target.value && setText(EXAMPLES[Number(e.target.value)]?.query ?? text)}>
            <option value="">Choose an example…</option>
            {EXAMPLES.map((ex, i) => <option key={ex.title} value={i}>{ex.title}</option>)}
          </select>
        </Field>
        <Field label="Query">
          <textarea
            className="code"
            rows={6}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void run();
              }
            }}
          />
        </Field>
        <Field label="Parameters (JSON object, optional)">
          <textarea className="code" rows={2} spellCheck={false} value={parameters} placeholder='{"site": "paris"}' onChange={(e) => setParameters(e.target.value)} />
        </Field>
        <Field label="At most">
          <select value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
            {LIMITS.map((l) => <option key={l} value={l}>{l.toLocaleString()} rows</option>)}
          </select>
        </Field>
        <p><button type="submit" disabled={running || !text.trim()}>{running ? 'Running…' : 'Run'}</button></p>
      </form>
      {history.length > 0 && (
        <details>
          <summary>History ({history.length})</summary>
          <ol className="plain history">
            {history.map((q) => (
              <li key={q}><button type="button" className="link code" onClick={() => setText(q)}>{q}</button></li>
            ))}
          </ol>
        </details>
      )}
      <ErrorBox error={error} />
      {result && (
        <div aria-live="polite">
          <p role="status">
            {result.rows.length.toLocaleString()} row{result.rows.length === 1 ? '' : 's'}
            {result.graph.nodes.length > 0 && `, ${result.graph.nodes.length.toLocaleString()} nodes and ${result.graph.relationships.length.toLocaleString()} relationships`}
            {result.truncated && ` (cut at ${result.limit.toLocaleString()}: there were more)`}
          </p>
          {result.graph.nodes.length > 0 && <Tabs tabs={[{ id: 'graph', label: 'Graph' }, { id: 'table', label: 'Table' }]} current={view} onChange={setView} />}
          <div role={result.graph.nodes.length > 0 ? 'tabpanel' : undefined} id={`panel-${view}`} aria-labelledby={result.graph.nodes.length > 0 ? `tab-${view}` : undefined}>
          {view === 'graph' && result.graph.nodes.length > 0 ? (
            <States loaded={colours}>{(c) => <ResultGraph result={result} colours={c} />}</States>
          ) : (
            <div className="table-wrap">
              <table>
                <caption>Result rows</caption>
                <thead>
                  <tr>{result.columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr>
                </thead>
                <tbody>
                  {result.rows.map((row, i) => (
                    // Rows have no identity of their own: their place is their key.
                    <tr key={i}>{result.columns.map((c) => <td key={c} className="code">{cellText(row[c])}</td>)}</tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          </div>
        </div>
      )}
    </section>
  );
}
