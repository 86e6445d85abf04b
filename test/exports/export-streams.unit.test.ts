// The transforms between a COPY stream and the export documents, fed in every split of their
// input into chunks (a record, a quoted field or a doubled quote cut across two chunks).
import { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import { CopyTextJsonArray, CsvRecordEnds, type JsonColumn } from '../../src/features/exports/export-streams.js';

async function through(transform: Transform, chunks: (string | Buffer)[]): Promise<string> {
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

describe('CopyTextJsonArray', () => {
  const columns: JsonColumn[] = [{ name: 'id', json: 'string' }, { name: 'n', json: 'number' }, { name: 'tags', json: 'json' }, { name: 'note', json: 'string' }];
  // Rows as COPY TO writes its text format: tabs between fields, \N for NULL, backslash escapes.
  const copy = [
    'a\t1\t["x","y"]\tsay "hi"\\tthere\\nnext\n',
    'b\t\\N\t\\N\t\\N\n',
    'c\t-2.5\t[]\tback\\\\slash, é and \\r\\b\\f\\v\n',
    'd\tNaN\t["q\\\\"x"]\t\n',
  ].join('');
  const expected = [
    { id: 'a', n: 1, tags: ['x', 'y'], note: 'say "hi"\tthere\nnext' },
    { id: 'b', n: null, tags: null, note: null },
    { id: 'c', n: -2.5, tags: [], note: 'back\\slash, é and \r\b\f\v' },
    { id: 'd', n: 'NaN', tags: ['q"x'], note: '' },
  ];

  it('writes each row as an object, keys in column order, however the input is cut (inside a character too)', async () => {
    const bytes = Buffer.from(copy);
    const cuts = [[bytes], ...Array.from({ length: bytes.length - 1 }, (_, i) => [bytes.subarray(0, i + 1), bytes.subarray(i + 1)]), [...bytes].map((b) => Buffer.from([b]))];
    for (const chunks of cuts) expect(JSON.parse(await through(new CopyTextJsonArray(columns), chunks))).toEqual(expected);
    expect(await through(new CopyTextJsonArray(columns), [copy])).toBe(`[\n${expected.map((o) => JSON.stringify(o)).join(',\n')}\n]\n`);
  });

  it('writes an empty array when there is no row, and fails on a row cut short', async () => {
    expect(await through(new CopyTextJsonArray(columns), [])).toBe('[]\n');
    await expect(through(new CopyTextJsonArray(columns), ['a\t1\t[]\tx'])).rejects.toThrow('inside a row');
    await expect(through(new CopyTextJsonArray(columns), ['a\t1\n'])).rejects.toThrow('2 fields for 4 columns');
  });
});
