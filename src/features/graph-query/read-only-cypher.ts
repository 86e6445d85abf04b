// The first line of defence of POST /graph/query: a check of the query's tokens that refuses what
// could write, administer, reach outside the service or run procedures beyond the allow-list. The
// READ-mode transaction it then runs in is the last line. Comments, string literals and
// backticked names are read as such, so `// CREATE` or 'DELETE' is no refusal and `CREATE` in
// backticks is a name; a keyword used as a property key (n.set, {delete: 1}) or label (:Set) is
// not a clause either.

/** Procedures a query may CALL (lower case): reads of the graph's vocabulary. */
export const ALLOWED_PROCEDURES: readonly string[] = ['db.labels', 'db.relationshiptypes', 'db.propertykeys', 'db.schema.visualization', 'db.schema.nodetypeproperties', 'db.schema.reltypeproperties'];

/** Namespaces of functions a query may call (lower case): Cypher's own temporal, spatial and vector functions. Plug-ins (apoc.*, gds.*) and dbms.* are not among them. */
export const ALLOWED_FUNCTION_NAMESPACES: readonly string[] = ['date', 'datetime', 'localdatetime', 'localtime', 'time', 'duration', 'point', 'vector'];

type RefusalKind = 'WRITE' | 'ADMINISTRATION' | 'LOAD_CSV' | 'PROCEDURE' | 'FUNCTION' | 'SEVERAL_STATEMENTS' | 'SYNTAX';

export interface Refusal {
  kind: RefusalKind;
  reason: string;
}

// Keyword sequences that are refused wherever they stand as keywords, with why; the first that
// matches gives the reason (CREATE INDEX is a schema command before CREATE is a write).
const REFUSED_KEYWORDS: { words: string[]; kind: RefusalKind; reason: string }[] = [
  ...['INDEX', 'CONSTRAINT', 'RANGE', 'TEXT', 'POINT', 'LOOKUP', 'FULLTEXT', 'VECTOR', 'BTREE', 'USER', 'ROLE', 'DATABASE', 'COMPOSITE', 'ALIAS', 'OR'].map((w) => ({
    words: ['CREATE', w],
    kind: 'ADMINISTRATION' as const,
    reason: `CREATE ${w === 'OR' ? 'OR REPLACE' : w} is a schema or administration command; the query endpoint runs plain read queries on the inventory graph.`,
  })),
  ...['CREATE', 'MERGE', 'DELETE', 'DETACH', 'SET', 'REMOVE', 'FOREACH'].map((w) => ({ words: [w], kind: 'WRITE' as const, reason: `${w} writes to the graph; the query endpoint only reads.` })),
  { words: ['PERIODIC'], kind: 'WRITE', reason: 'USING PERIODIC COMMIT is for batched writes; the query endpoint only reads.' },
  { words: ['TRANSACTIONS'], kind: 'WRITE', reason: 'CALL ... IN TRANSACTIONS and transaction commands are not allowed; the query endpoint runs one read transaction.' },
  { words: ['LOAD'], kind: 'LOAD_CSV', reason: 'LOAD CSV reads files and URLs; the query endpoint reads the graph only.' },
  ...['DROP', 'ALTER', 'GRANT', 'DENY', 'REVOKE', 'RENAME', 'SHOW', 'TERMINATE', 'USE', 'ENABLE', 'DEALLOCATE', 'REALLOCATE'].map((w) => ({
    words: [w],
    kind: 'ADMINISTRATION' as const,
    reason: `${w} is a schema or administration command; the query endpoint runs plain read queries on the inventory graph.`,
  })),
  ...['START', 'STOP'].map((w) => ({ words: [w, 'DATABASE'], kind: 'ADMINISTRATION' as const, reason: `${w} DATABASE is an administration command.` })),
];

type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'parameter' | 'symbol';

interface Token {
  kind: TokenKind;
  /** A word or quoted name as written (quoted: without its backticks); a symbol's character. */
  text: string;
}

export class CypherSyntaxError extends Error {}

/** Splits Cypher into tokens, dropping comments and whitespace. */
export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = query.length;
  while (i < n) {
    const c = query[i] as string;
    if (/\s/.test(c)) {
      i += 1;
    } else if (query.startsWith('//', i)) {
      const end = query.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (query.startsWith('/*', i)) {
      const end = query.indexOf('*/', i + 2);
      if (end === -1) throw new CypherSyntaxError('A /* comment is not closed.');
      i = end + 2;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < n && query[j] !== c) j += query[j] === '\\' ? 2 : 1;
      if (j >= n) throw new CypherSyntaxError('A string literal is not closed.');
      tokens.push({ kind: 'string', text: query.slice(i + 1, j) });
      i = j + 1;
    } else if (c === '`') {
      // A backtick inside a quoted name is written twice.
      let j = i + 1;
      let text = '';
      for (;;) {
        const end = query.indexOf('`', j);
        if (end === -1) throw new CypherSyntaxError('A `quoted name` is not closed.');
        text += query.slice(j, end);
        if (query[end + 1] === '`') {
          text += '`';
          j = end + 2;
        } else {
          j = end + 1;
          break;
        }
      }
      tokens.push({ kind: 'quoted', text });
      i = j;
    } else if (c === '$') {
      const match = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|\d+|`[^`]*`)?/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'parameter', text: match[0] });
      i += match[0].length;
    } else if (/[A-Za-z_\u00C0-\uFFFF]/.test(c)) {
      const match = /^[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_\u00C0-\uFFFF]*/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'word', text: match[0] });
      i += match[0].length;
    } else if (/\d/.test(c)) {
      const match = /^\d[\dA-Za-z_]*(?:\.\d[\dA-Za-z_]*)?/.exec(query.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'number', text: match[0] });
      i += match[0].length;
    } else {
      tokens.push({ kind: 'symbol', text: c });
      i += 1;
    }
  }
  return tokens;
}

const isSymbol = (token: Token | undefined, text: string) => token?.kind === 'symbol' && token.text === text;
const isName = (token: Token | undefined) => token?.kind === 'word' || token?.kind === 'quoted';

/**
 * A word that is a keyword where it stands: not a property key (after a dot, or before the colon
 * of a map entry) and not a label or relationship type (after a colon).
 */
function isKeywordAt(tokens: Token[], i: number): boolean {
  const token = tokens[i] as Token;
  if (token.kind !== 'word') return false;
  return !isSymbol(tokens[i - 1], '.') && !isSymbol(tokens[i - 1], ':') && !isSymbol(tokens[i + 1], ':');
}

/** The dotted name that starts at i (a.b.`c`), with the index after it. */
function dottedName(tokens: Token[], i: number): { name: string; next: number } {
  const parts: string[] = [];
  let j = i;
  while (isName(tokens[j])) {
    parts.push((tokens[j] as Token).text);
    j += 1;
    if (!isSymbol(tokens[j], '.') || !isName(tokens[j + 1])) break;
    j += 1;
  }
  return { name: parts.join('.'), next: j };
}

/** Why the query may not run, or null when it may. */
export function refusalOf(query: string): Refusal | null {
  let tokens: Token[];
  try {
    tokens = tokenize(query);
  } catch (error) {
    return { kind: 'SYNTAX', reason: (error as Error).message };
  }
  // One trailing semicolon is allowed; any other separates statements.
  if (isSymbol(tokens.at(-1), ';')) tokens = tokens.slice(0, -1);
  if (tokens.length === 0) return { kind: 'SYNTAX', reason: 'The query is empty.' };
  if (tokens.some((t) => isSymbol(t, ';'))) return { kind: 'SEVERAL_STATEMENTS', reason: 'Send one statement per request.' };

  for (let i = 0; i < tokens.length; i += 1) {
    if (!isKeywordAt(tokens, i)) continue;
    const word = (tokens[i] as Token).text.toUpperCase();
    for (const rule of REFUSED_KEYWORDS) {
      const matches = rule.words.every((w, k) => tokens[i + k]?.kind === 'word' && (tokens[i + k] as Token).text.toUpperCase() === w);
      if (matches) return { kind: rule.kind, reason: rule.reason };
    }
    if (word === 'CALL' && isName(tokens[i + 1])) {
      const { name } = dottedName(tokens, i + 1);
      if (!ALLOWED_PROCEDURES.includes(name.toLowerCase())) {
        return { kind: 'PROCEDURE', reason: `The procedure ${name} is not allowed; allowed are ${ALLOWED_PROCEDURES.join(', ')} (case-insensitive).` };
      }
    }
  }
  // A namespaced function call: a dotted name followed by "(", not after CALL (checked above).
  for (let i = 0; i < tokens.length; i += 1) {
    if (!isName(tokens[i]) || isSymbol(tokens[i - 1], '.') || !isSymbol(tokens[i + 1], '.')) continue;
    const { name, next } = dottedName(tokens, i);
    const afterCall = tokens[i - 1]?.kind === 'word' && (tokens[i - 1] as Token).text.toUpperCase() === 'CALL';
    if (afterCall || !isSymbol(tokens[next], '(')) continue;
    const namespace = (name.split('.')[0] as string).toLowerCase();
    if (!ALLOWED_FUNCTION_NAMESPACES.includes(namespace)) {
      return { kind: 'FUNCTION', reason: `The function ${name} is not allowed; namespaced functions are limited to ${ALLOWED_FUNCTION_NAMESPACES.join(', ')}.` };
    }
  }
  return null;
}
