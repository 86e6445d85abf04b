// The example queries of docs/graph-model.md ("Ten useful queries"): the tests run each through
// the endpoint and compare it with Neo4j's own answer, and the benchmark times their admission.
import { readFileSync } from 'node:fs';
import { fromProjectRoot } from '../../platform/project-root.js';

/** The ```cypher blocks of docs/graph-model.md's "Ten useful queries", in order. */
export function documentedQueries(): string[] {
  const doc = readFileSync(fromProjectRoot('docs', 'graph-model.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Ten useful queries'));
  return [...section.matchAll(/```cypher\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trim());
}
