// The transforms between a COPY stream and the export documents, fed in every split of their
// input into chunks (a record, a quoted field or a doubled quote cut across two chunks).
import { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import { CsvRecordEnds, JsonLinesArray } from '../../src/features/exports/export-streams.js';

async function through(transform: Transform, chunks: string[]): Promise<string> {
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks.map((c) => Buffer.from(c))).pipe(transform)) out.push(Buffer.from(chunk));
  return Buffer.concat(out).toString('utf8');
}

/** Every way of cutting `text` into two chunks, and into single characters. */
function splits(text: string): string[][] {
  const out = [[text], [...text]];
  for (let i = 1; i < text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

describe('CsvRecordEnds', () => {
  const copy = 'a,"two\nlines",b\n"say ""hi""\n",x,\n,"",""""\n';
  const expected = 'a,"two\nlines",b\r\n"say ""hi""\n",x,\r\n,"",""""\r\n';

  it('ends records in CRLF and keeps line breaks inside quoted fields, however the input is cut', async () => {
    for (const chunks of splits(copy)) expect(await through(new CsvRecordEnds(), chunks)).toBe(expected);
  });

  it('passes an input without line breaks through unchanged', async () => {
    expect(await through(new CsvRecordEnds(), ['abc', '"d\re"'])).toBe('abc"d\re"');
  });
});

describe('JsonLinesArray', () => {
  it('makes one array of the lines, written as they come, however the input is cut', async () => {
    const lines = '{"a":1}\n{"b":"x\\ny"}\n{"c":[1,2]}\n';
    for (const chunks of splits(lines)) expect(JSON.parse(await through(new JsonLinesArray(), chunks))).toEqual([{ a: 1 }, { b: 'x\ny' }, { c: [1, 2] }]);
    expect(await through(new JsonLinesArray(), [lines])).toBe('[\n{"a":1},\n{"b":"x\\ny"},\n{"c":[1,2]}\n]\n');
  });

  it('writes an empty array when there is no line', async () => {
    expect(await through(new JsonLinesArray(), [])).toBe('[]\n');
  });
});
