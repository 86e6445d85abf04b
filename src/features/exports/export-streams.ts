// What turns a COPY stream into the documents of docs/interface.md §4.7: CSV records end in CRLF (RFC 4180;
// COPY ends them in LF and quotes every field that holds a line break, so a LF outside quotes is
// a record's end), and JSON lines become one array written record by record. Each chunk is
// rewritten into one new buffer: these run once per exported byte.
import { Transform, type TransformCallback } from 'node:stream';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;

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

/** One JSON value per line in, `[` + the values separated by `,\n` + `]` out. */
export class JsonLinesArray extends Transform {
  private started = false;
  /** The previous chunk ended a line: the next record, if any, gets its separator. */
  private pendingLf = false;
  /** Records that passed (counted at their line ends). */
  records = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (chunk.length === 0) return done();
    const endsLine = chunk[chunk.length - 1] === LF;
    const body = endsLine ? chunk.subarray(0, chunk.length - 1) : chunk;
    const prefix = !this.started ? '[\n' : this.pendingLf ? ',\n' : '';
    let lfs = 0;
    for (let i = body.indexOf(LF); i !== -1; i = body.indexOf(LF, i + 1)) lfs++;
    const out = Buffer.allocUnsafe(prefix.length + body.length + lfs);
    let to = out.write(prefix, 0, 'latin1');
    let from = 0;
    for (let lf = body.indexOf(LF); lf !== -1; lf = body.indexOf(LF, lf + 1)) {
      to += body.copy(out, to, from, lf);
      out[to++] = COMMA;
      out[to++] = LF;
      from = lf + 1;
    }
    body.copy(out, to, from);
    this.started = true;
    this.pendingLf = endsLine;
    this.records += lfs + (endsLine ? 1 : 0);
    done(null, out);
  }

  override _flush(done: TransformCallback): void {
    done(null, this.started ? '\n]\n' : '[]\n');
  }
}
