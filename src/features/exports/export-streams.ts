// What turns a COPY stream into the documents of spec 4.7: CSV records end in CRLF (RFC 4180;
// COPY ends them in LF and quotes every field that holds a line break, so a LF outside quotes is
// a record's end), and JSON lines become one array written record by record.
import { Transform, type TransformCallback } from 'node:stream';

const QUOTE = 0x22;
const LF = 0x0a;
const CRLF = Buffer.from('\r\n');

/** LF at the end of a CSV record becomes CRLF; line breaks inside quoted fields are kept. */
export class CsvRecordEnds extends Transform {
  private inQuotes = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const parts: Buffer[] = [];
    let copied = 0;
    let at = 0;
    let nextQuote = chunk.indexOf(QUOTE);
    let nextLf = chunk.indexOf(LF);
    for (;;) {
      if (this.inQuotes) {
        // A doubled quote leaves and re-enters the quoted field: the state stays right.
        if (nextQuote === -1) break;
        this.inQuotes = false;
        at = nextQuote + 1;
        nextQuote = chunk.indexOf(QUOTE, at);
        continue;
      }
      if (nextLf !== -1 && nextLf < at) nextLf = chunk.indexOf(LF, at);
      if (nextLf === -1 && nextQuote === -1) break;
      if (nextQuote === -1 || (nextLf !== -1 && nextLf < nextQuote)) {
        parts.push(chunk.subarray(copied, nextLf), CRLF);
        copied = at = nextLf + 1;
        nextLf = chunk.indexOf(LF, at);
      } else {
        this.inQuotes = true;
        at = nextQuote + 1;
        nextQuote = chunk.indexOf(QUOTE, at);
      }
    }
    parts.push(chunk.subarray(copied));
    done(null, Buffer.concat(parts));
  }
}

/** One JSON value per line in, `[` + the values separated by `,\n` + `]` out. */
export class JsonLinesArray extends Transform {
  private records = 0;
  private atLineStart = true;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const parts: Buffer[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.atLineStart) {
        parts.push(Buffer.from(this.records === 0 ? '[\n' : ',\n'));
        this.records++;
        this.atLineStart = false;
      }
      const lf = chunk.indexOf(LF, at);
      if (lf === -1) {
        parts.push(chunk.subarray(at));
        break;
      }
      parts.push(chunk.subarray(at, lf));
      this.atLineStart = true;
      at = lf + 1;
    }
    done(null, Buffer.concat(parts));
  }

  override _flush(done: TransformCallback): void {
    done(null, this.records === 0 ? '[]\n' : '\n]\n');
  }
}
