// What turns a COPY stream into the documents of docs/interface.md §4.7: CSV records end in CRLF (RFC 4180;
// COPY ends them in LF and quotes every field that holds a line break, so a LF outside quotes is
// a record's end), and rows of COPY's text format become one JSON array written record by
// record. These run once per exported byte.
import { Transform, type TransformCallback } from 'node:stream';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** LF at the end of a CSV record becomes CRLF; line breaks inside quoted fields are kept. */
export class CsvRecordEnds extends Transform {
  private inQuotes = false;
  /** Records that passed. */
  records = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    // The record ends: positions of the LFs outside quotes.
    const ends: number[] = [];
    let inQuotes = this.inQuotes;
    let quote = chunk.indexOf(QUOTE);
    let lf = chunk.indexOf(LF);
    while (lf !== -1) {
      if (quote !== -1 && quote < lf) {
        inQuotes = !inQuotes;
        quote = chunk.indexOf(QUOTE, quote + 1);
        continue;
      }
      if (!inQuotes) ends.push(lf);
      lf = chunk.indexOf(LF, lf + 1);
    }
    while (quote !== -1) {
      inQuotes = !inQuotes;
      quote = chunk.indexOf(QUOTE, quote + 1);
    }
    this.inQuotes = inQuotes;
    this.records += ends.length;
    if (ends.length === 0) return done(null, chunk);
    const out = Buffer.allocUnsafe(chunk.length + ends.length);
    let from = 0;
    let to = 0;
    for (const end of ends) {
      to += chunk.copy(out, to, from, end);
      out[to++] = CR;
      out[to++] = LF;
      from = end + 1;
    }
    chunk.copy(out, to, from);
    done(null, out);
  }
}

/** How a column's value is written in JSON: as a string, as a number, or as the JSON text PostgreSQL wrote (lists, port objects). */
export type JsonValueKind = 'string' | 'number' | 'json';

export interface JsonColumn {
  name: string;
  json: JsonValueKind;
}

// COPY's text format: fields split by tabs, NULL as \N, and a backslash before b f n r t v and
// itself for those characters (COPY TO writes no other escape).
const ESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
const unescaped = (field: string) => (field.includes('\\') ? field.replace(/\\(.)/g, (_, c: string) => ESCAPED[c] ?? c) : field);
// float8 values that JSON has no number for: written as strings, as row_to_json writes them.
const NOT_FINITE = new Set(['NaN', 'Infinity', '-Infinity']);

/**
 * Rows of COPY's text format in, one JSON array of objects out (`[`, the objects separated by
 * `,\n`, `]`), keys in the columns' order. Turning rows into JSON here rather than in
 * PostgreSQL (row_to_json) halves the server's work per row and spreads the rest over a second
 * core: the export then runs near the rate of the plain COPY.
 */
export class CopyTextJsonArray extends Transform {
  private started = false;
  /** The start of a row that the last chunk cut (a line ends at LF, which no UTF-8 character holds). */
  private rest: Buffer = Buffer.alloc(0);
  /** Each column's `{"name":` or `,"name":`. */
  private readonly keys: string[];
  private readonly kinds: JsonValueKind[];
  /** Records that passed. */
  records = 0;

  constructor(columns: readonly JsonColumn[]) {
    super();
    this.keys = columns.map((c, i) => `${i === 0 ? '{' : ','}${JSON.stringify(c.name)}:`);
    this.kinds = columns.map((c) => c.json);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    const end = data.lastIndexOf(LF);
    this.rest = end === -1 ? data : data.subarray(end + 1);
    if (end === -1) return done();
    let out = '';
    try {
      for (const line of data.toString('utf8', 0, end).split('\n')) {
        out += `${this.started ? ',\n' : '[\n'}${this.object(line)}`;
        this.started = true;
        this.records++;
      }
    } catch (error) {
      return done(error as Error);
    }
    done(null, out);
  }

  override _flush(done: TransformCallback): void {
    if (this.rest.length) return done(new Error('the COPY stream ended inside a row'));
    done(null, this.started ? '\n]\n' : '[]\n');
  }

  private object(line: string): string {
    const fields = line.split('\t');
    if (fields.length !== this.keys.length) throw new Error(`a COPY row of ${fields.length} fields for ${this.keys.length} columns`);
    let out = '';
    for (let i = 0; i < fields.length; i++) out += (this.keys[i] as string) + this.value(fields[i] as string, this.kinds[i] as JsonValueKind);
    return `${out}}`;
  }

  private value(field: string, kind: JsonValueKind): string {
    if (field === '\\N') return 'null';
    if (kind === 'string') return JSON.stringify(unescaped(field));
    if (kind === 'number') return NOT_FINITE.has(field) ? `"${field}"` : field;
    return unescaped(field);
  }
}
