// A strict RFC 4180 reader for the tests: records end in CRLF; a field is either plain (no quote,
// CR or LF in it) or quoted (anything inside, a quote written twice); nothing else is accepted.
export function parseRfc4180(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let at = 0;
  const fail = (why: string) => {
    throw new Error(`not RFC 4180 at offset ${at} (record ${records.length + 1}): ${why}`);
  };
  while (at < text.length) {
    let field = '';
    if (text[at] === '"') {
      at += 1;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote === -1) fail('a quoted field never ends');
        field += text.slice(at, quote);
        if (text[quote + 1] === '"') {
          field += '"';
          at = quote + 2;
        } else {
          at = quote + 1;
          break;
        }
      }
    } else {
      const end = text.slice(at).search(/[,\r\n"]/);
      const stop = end === -1 ? text.length : at + end;
      field = text.slice(at, stop);
      at = stop;
      if (text[at] === '"') fail('a quote inside a plain field');
    }
    record.push(field);
    if (text[at] === ',') {
      at += 1;
    } else if (text.startsWith('\r\n', at)) {
      records.push(record);
      record = [];
      at += 2;
    } else if (at < text.length) {
      fail(`${JSON.stringify(text[at])} after a field`);
    } else {
      fail('the last record does not end in CRLF');
    }
  }
  return records;
}
