// The one rule for a CSV cell that a spreadsheet would run as a formula (OWASP CSV injection), and
// its one cure, a leading quote; every export applies it to every text cell. A cell is run when it
// starts with a tab or CR, or with = + - @ behind characters a spreadsheet skips: Unicode spaces
// and separators (\p{Z}: U+00A0, U+3000, ...), control characters (\p{Cc}) and format characters
// (\p{Cf}: the BOM U+FEFF, a zero-width space). The graph's exports test cells here in JavaScript;
// the COPY exports in PostgreSQL, whose regular expressions know no Unicode properties: there the
// same class is written out as the code point ranges that JavaScript finds for it.

const SKIPPED = /[\p{Z}\p{Cc}\p{Cf}]/u;
const FORMULA_CELL = /^(?:[\t\r]|[\p{Z}\p{Cc}\p{Cf}]*[=+@-])/u;

/** The code points of SKIPPED as ranges; they lie in planes 0, 1 and 14 only (no other plane holds a space, control or format character). */
function skippedRanges(): [number, number][] {
  const ranges: [number, number][] = [];
  const planes: [number, number][] = [[0x1, 0x1ffff], [0xe0000, 0xe0fff]];
  for (const [from, to] of planes) {
    for (let cp = from; cp <= to; cp++) {
      if ((cp < 0xd800 || cp > 0xdfff) && SKIPPED.test(String.fromCodePoint(cp))) {
        const last = ranges.at(-1);
        if (last && last[1] === cp - 1) last[1] = cp;
        else ranges.push([cp, cp]);
      }
    }
  }
  return ranges;
}

const sqlCodePoint = (cp: number) => (cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`);
let formulaCellSql: string | undefined;
/** FORMULA_CELL for PostgreSQL (a standard-conforming string: backslashes reach the regex engine); worked out at its first use, as it tests some 135,000 code points. */
function formulaCellSqlPattern(): string {
  formulaCellSql ??= `^([\\t\\r]|[${skippedRanges().map(([a, b]) => (a === b ? sqlCodePoint(a) : `${sqlCodePoint(a)}-${sqlCodePoint(b)}`)).join('')}]*[=+@-])`;
  return formulaCellSql;
}

/** A text cell as CSV shows it: with a leading quote when a spreadsheet would run it. */
export function neutralisedText(text: string): string {
  return FORMULA_CELL.test(text) ? `'${text}` : text;
}

/** neutralisedText in SQL, for a text expression: an empty value becomes NULL (an empty cell). */
export function neutralisedSql(value: string): string {
  // ascii() (the first code point) spares the regular expression to almost every cell: no
  // printable ASCII character but = + - @ can begin a formula, and every skipped character is
  // below 33 or above 126.
  return `CASE WHEN ${value} = '' THEN NULL
    WHEN (ascii(${value}) IN (61, 43, 45, 64) OR ascii(${value}) < 33 OR ascii(${value}) > 126) AND ${value} ~ '${formulaCellSqlPattern()}' THEN '''' || ${value}
    ELSE ${value} END`;
}
