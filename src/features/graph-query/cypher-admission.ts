// Which analyst statements POST /graph/query runs: decided on Neo4j's own reading of the statement,
// never on ours. The statement is EXPLAINed in the transaction it would run in (same parameters);
// it runs only when Neo4j calls it a read (query type "r") and every operator of its plan is on the
// allow-list below, with procedure calls limited to ALLOWED_PROCEDURES and namespaced functions to
// Cypher's own. Before that, one cheap check of our own: bracket nesting (the length is bounded by
// api.yaml), because Neo4j's parser spends seconds to minutes on deep nesting. docs/graph-model.md
// ("Running queries through the service") lists what is allowed and why.
import type { Plan } from 'neo4j-driver';

/** Procedures a query may CALL (compared without case): reads of the graph's vocabulary. */
export const ALLOWED_PROCEDURES: readonly string[] = ['db.labels', 'db.relationshipTypes', 'db.propertyKeys', 'db.schema.visualization', 'db.schema.nodeTypeProperties', 'db.schema.relTypeProperties'];

/** Namespaces of functions a query may call (lower case): Cypher's own temporal, spatial and vector functions. Plug-ins (apoc.*, gds.*) and dbms.* are not among them. */
export const ALLOWED_FUNCTION_NAMESPACES: readonly string[] = ['date', 'datetime', 'localdatetime', 'localtime', 'time', 'duration', 'point', 'vector'];

/** The deepest nesting of ( [ { the endpoint takes. */
export const MAX_NESTING_DEPTH = 64;

/**
 * Plan operators that read (Neo4j 5 names, without the "(All)"-style mode or the "@database" that
 * plans add). Anything else, every writing, schema, administration, SHOW, TERMINATE and LOAD CSV
 * operator included, and any operator a later Neo4j adds, is refused.
 */
const READ_OPERATORS: ReadonlySet<string> = new Set([
  // Leaves: scans and seeks of nodes and relationships.
  'AllNodesScan', 'NodeByLabelScan', 'NodeByIdSeek', 'NodeByElementIdSeek', 'NodeIndexSeek', 'NodeUniqueIndexSeek', 'NodeIndexSeekByRange',
  'NodeUniqueIndexSeekByRange', 'NodeIndexScan', 'NodeIndexContainsScan', 'NodeIndexEndsWithScan', 'MultiNodeIndexSeek', 'AssertingMultiNodeIndexSeek',
  'IntersectionNodeByLabelsScan', 'UnionNodeByLabelsScan', 'SubtractionNodeByLabelsScan', 'NodeCountFromCountStore', 'RelationshipCountFromCountStore',
  'DirectedAllRelationshipsScan', 'UndirectedAllRelationshipsScan', 'DirectedRelationshipTypeScan', 'UndirectedRelationshipTypeScan',
  'DirectedUnionRelationshipTypesScan', 'UndirectedUnionRelationshipTypesScan', 'DirectedRelationshipByIdSeek', 'UndirectedRelationshipByIdSeek',
  'DirectedRelationshipByElementIdSeek', 'UndirectedRelationshipByElementIdSeek', 'DirectedRelationshipIndexSeek', 'UndirectedRelationshipIndexSeek',
  'DirectedRelationshipUniqueIndexSeek', 'UndirectedRelationshipUniqueIndexSeek', 'DirectedRelationshipIndexSeekByRange', 'UndirectedRelationshipIndexSeekByRange',
  'DirectedRelationshipUniqueIndexSeekByRange', 'UndirectedRelationshipUniqueIndexSeekByRange', 'DirectedRelationshipIndexScan', 'UndirectedRelationshipIndexScan',
  'DirectedRelationshipIndexContainsScan', 'UndirectedRelationshipIndexContainsScan', 'DirectedRelationshipIndexEndsWithScan', 'UndirectedRelationshipIndexEndsWithScan',
  'Argument', 'ArgumentTracker', 'EmptyRow',
  // Traversals.
  'Expand', 'OptionalExpand', 'VarLengthExpand', 'ShortestPath', 'StatefulShortestPath', 'Repeat', 'BidirectionalRepeat', 'ProjectEndpoints',
  'TriadicSelection', 'TriadicBuild', 'TriadicFilter',
  // Rows: filters, projections, order, aggregation, limits.
  'Filter', 'Projection', 'ProduceResults', 'EmptyResult', 'Limit', 'ExhaustiveLimit', 'Skip', 'Sort', 'PartialSort', 'Top', 'PartialTop',
  'EagerAggregation', 'OrderedAggregation', 'Distinct', 'OrderedDistinct', 'Unwind', 'Eager', 'CacheProperties', 'NullifyMetadata', 'PreserveOrder',
  // Joins, unions and the apply family of subqueries.
  'Apply', 'SemiApply', 'AntiSemiApply', 'LetSemiApply', 'LetAntiSemiApply', 'SelectOrSemiApply', 'SelectOrAntiSemiApply', 'LetSelectOrSemiApply',
  'LetSelectOrAntiSemiApply', 'ConditionalApply', 'AntiConditionalApply', 'RollUpApply', 'Optional', 'Anti', 'CartesianProduct', 'NodeHashJoin',
  'ValueHashJoin', 'NodeLeftOuterHashJoin', 'NodeRightOuterHashJoin', 'Union', 'OrderedUnion',
  // Checked further: only ALLOWED_PROCEDURES.
  'ProcedureCall',
]);

// Operators refused with a reason of their own (others: "not on the allow-list").
const WRITE_OPERATORS = /^(Create|Merge|LockingMerge|Set|Remove|Delete|DetachDelete|Foreach|SubqueryForeach|TransactionForeach|TransactionApply|Assert(SameNode|SameRelationship))/;
const ADMINISTRATION_OPERATORS = /^(AdministrationCommand|Show|Terminate|Create(Index|Constraint)|Drop|DoNothingIf)/;

export type RefusalKind = 'WRITE' | 'ADMINISTRATION' | 'LOAD_CSV' | 'PROCEDURE' | 'FUNCTION' | 'SUBQUERY_EXPRESSION' | 'OPERATOR' | 'OTHER_DATABASE' | 'TOO_DEEP';

export interface Refusal {
  kind: RefusalKind;
  reason: string;
}

const LINE_END = /[\n\r\u0085\u2028\u2029]/;

/**
 * The deepest bracket nesting of the statement, strings and comments aside. A statement crafted so
 * that this misreads it only reaches Neo4j's own parser, whose stack the local server makes deep
 * enough (local-neo4j-server.ts) and whose time the transaction's time-out bounds.
 */
export function nestingDepth(query: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < query.length; i += 1) {
    const c = query.charAt(i);
    if (c === '/' && query[i + 1] === '/') {
      while (i < query.length && !LINE_END.test(query.charAt(i))) i += 1;
    } else if (c === '/' && query[i + 1] === '*') {
      const end = query.indexOf('*/', i + 2);
      i = end === -1 ? query.length : end + 1;
    } else if (c === "'" || c === '"' || c === '`') {
      i += 1;
      while (i < query.length && query[i] !== c) i += c !== '`' && query[i] === '\\' ? 2 : 1;
    } else if (c === '(' || c === '[' || c === '{') {
      depth += 1;
      deepest = Math.max(deepest, depth);
    } else if (c === ')' || c === ']' || c === '}') {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

/** Why the statement is not even shown to Neo4j, or null. */
export function refusalOfText(query: string): Refusal | null {
  const depth = nestingDepth(query);
  if (depth > MAX_NESTING_DEPTH) {
    return { kind: 'TOO_DEEP', reason: `brackets are nested ${depth} deep; at most ${MAX_NESTING_DEPTH} levels are taken.` };
  }
  return null;
}

/** What EXPLAIN tells of a statement: its query type ("r", "rw", "w", "s") and its plan. */
export interface ExplainedStatement {
  queryType: string;
  plan: Plan | false;
}

const operatorName = (operatorType: string) => operatorType.replace(/@.*$/, '').replace(/\(.*\)$/, '');
const databaseOf = (operatorType: string) => /@(.*)$/.exec(operatorType)?.[1];
const detailsOf = (plan: Plan) => (typeof plan.arguments.Details === 'string' ? plan.arguments.Details : '');

// A subquery expression (COUNT, COLLECT or EXISTS { ... }) that Neo4j did not plan as operators
// (one inside a list comprehension, reduce() or CASE) shows only as text in its operator's
// details: what it does cannot be checked, so it is refused.
const NESTED_SUBQUERY = /\b(?:COUNT|COLLECT|EXISTS)\s*\{/i;
// A namespaced function call in an operator's details: name.space.fn(
const NAMESPACED_CALL = /(?<![\w.`$])([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+)\s*\(/g;

function refusalOfOperator(plan: Plan, database: string): Refusal | null {
  const { operatorType } = plan;
  const name = operatorName(operatorType);
  const details = detailsOf(plan);
  const target = databaseOf(operatorType);
  if (name === 'LoadCSV') return { kind: 'LOAD_CSV', reason: 'LOAD CSV reads files and URLs; the endpoint reads the graph only.' };
  if (ADMINISTRATION_OPERATORS.test(name)) return { kind: 'ADMINISTRATION', reason: `it is a schema or administration command (${name}); the endpoint runs plain read queries on the inventory graph.` };
  if (WRITE_OPERATORS.test(name)) return { kind: 'WRITE', reason: `it writes (${name}); the endpoint only reads.` };
  if (target !== undefined && target !== database) {
    return { kind: 'OTHER_DATABASE', reason: `it runs ${name} on the database ${target}; the endpoint reads the inventory graph (${database}) only.` };
  }
  if (!READ_OPERATORS.has(name)) return { kind: 'OPERATOR', reason: `its plan has the operator ${name}, which is not on the endpoint's allow-list of read operators (docs/graph-model.md).` };
  if (name === 'ProcedureCall') {
    const procedure = /^\s*([\w.`]+)\s*\(/.exec(details)?.[1]?.replace(/`/g, '') ?? '';
    if (!ALLOWED_PROCEDURES.some((p) => p.toLowerCase() === procedure.toLowerCase())) {
      return { kind: 'PROCEDURE', reason: `the procedure ${procedure || '(unnamed)'} is not allowed; allowed are ${ALLOWED_PROCEDURES.join(', ')}.` };
    }
    return null;
  }
  if (NESTED_SUBQUERY.test(details)) {
    return { kind: 'SUBQUERY_EXPRESSION', reason: 'a COUNT, COLLECT or EXISTS subquery inside a list comprehension, reduce() or CASE cannot be checked; write it as CALL { ... } or in a WITH.' };
  }
  for (const [, fn] of details.matchAll(NAMESPACED_CALL)) {
    const namespace = (fn as string).split('.')[0]?.toLowerCase() as string;
    if (!ALLOWED_FUNCTION_NAMESPACES.includes(namespace)) {
      return { kind: 'FUNCTION', reason: `the function ${fn} is not allowed; namespaced functions are limited to ${ALLOWED_FUNCTION_NAMESPACES.join(', ')}.` };
    }
  }
  return null;
}

/** Why Neo4j's plan of the statement may not run, or null when it may. */
export function refusalOfPlan({ queryType, plan }: ExplainedStatement, database: string): Refusal | null {
  if (!plan) return { kind: 'OPERATOR', reason: 'Neo4j gave no plan for it.' };
  const pending: Plan[] = [plan];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const refusal = refusalOfOperator(next, database);
    if (refusal) return refusal;
    pending.push(...next.children);
  }
  // Every operator reads, yet Neo4j does not call it a read: a procedure's mode, for one.
  if (queryType !== 'r') return { kind: 'WRITE', reason: `Neo4j does not call it a read-only statement (query type ${queryType}).` };
  return null;
}
