// cleanText: what every connector does to a string a device or host returned.
import { cleanText, DEFAULT_TEXT_MAX } from '../../src/features/discovery/untrusted-text.js';

describe('cleaning untrusted text', () => {
  it('strips control characters: NUL, BEL, the ESC of escape sequences, DEL and C1 controls', () => {
    expect(cleanText('a\u0000b\u0007c\u001b[31md\u001b[0m\u007fe\u0085f\u009bg')).toBe('abc[31md[0mefg');
  });

  it('strips bidi overrides, isolates, marks and zero-width characters', () => {
    expect(cleanText('\u202eexe.txt\u202c \u2066iso\u2069 \u200fmark\u200e zero\u200bwidth')).toBe('exe.txt iso mark zerowidth');
  });

  it('turns line breaks and tabs into one space and trims', () => {
    expect(cleanText('  line1\r\nline2\n\n\tline3  ')).toBe('line1 line2 line3');
  });

  it('caps the length, 512 characters unless told otherwise', () => {
    expect(DEFAULT_TEXT_MAX).toBe(512);
    expect(cleanText('x'.repeat(100_000))).toBe('x'.repeat(512));
    expect(cleanText(`\u0000${'y'.repeat(20)}`, 8)).toBe('yyyyyyyy');
  });

  it('is undefined for nothing printable, null or undefined; reads buffers as UTF-8 and other values as strings', () => {
    expect(cleanText('\u0000\u001b\u202e \n')).toBeUndefined();
    expect(cleanText('')).toBeUndefined();
    expect(cleanText(null)).toBeUndefined();
    expect(cleanText(undefined)).toBeUndefined();
    expect(cleanText(Buffer.from('Gr\u00fc\u00dfe\u0000', 'utf8'))).toBe('Gr\u00fc\u00dfe');
    expect(cleanText(42)).toBe('42');
  });

  it('keeps printable text of any script as it is', () => {
    expect(cleanText('Serveur de donn\u00e9es \u2014 \u6570\u636e\u5e93 \u0645\u062e\u0632\u0646')).toBe('Serveur de donn\u00e9es \u2014 \u6570\u636e\u5e93 \u0645\u062e\u0632\u0646');
  });
});
