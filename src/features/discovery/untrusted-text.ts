// Strings that devices return are untrusted: control characters (escape sequences included) are
// stripped, length is capped, and the result is stored as data, never interpreted.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u2028-\u202E\u2066-\u2069]/g;
export const DEFAULT_TEXT_MAX = 512;

/** A cleaned single-line string, or undefined when nothing printable is left. */
export function cleanText(value: unknown, max = DEFAULT_TEXT_MAX): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = (Buffer.isBuffer(value) ? value.toString('utf8') : String(value)).replace(/[\r\n\t]+/g, ' ').replace(CONTROL, '').trim();
  return text ? text.slice(0, max) : undefined;
}
