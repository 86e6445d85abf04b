// Writes an export as it is produced: CSV (RFC 4180, with a header row) or one JSON array written
// record by record. Each batch waits for the client to take the previous one (back-pressure),
// so a slow reader never makes the service hold the whole result.
import type { Response } from 'express';
import { stringify } from 'csv-stringify/sync';

export type ExportFormat = 'csv' | 'json';
export type ExportRow = Record<string, unknown>;
/** How a column is written in a CSV cell, where the default would be poor (structured values). */
export type CsvCellFormats = Record<string, (value: never) => string>;

// A cell that a spreadsheet would read as a formula is prefixed with a quote (OWASP CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(';');
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return typeof value === 'string' && FORMULA_START.test(text) ? `'${text}` : text;
}

export class ExportWriter {
  private rows = 0;

  constructor(
    private readonly res: Response,
    private readonly format: ExportFormat,
    private readonly columns: readonly string[],
    private readonly filename: string,
    private readonly csvFormats: CsvCellFormats = {},
  ) {}

  /** Sends the headers and the start of the document (a failure before this is still a problem+json answer). */
  async begin(): Promise<void> {
    this.res.status(200);
    this.res.setHeader('Content-Type', this.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
    this.res.setHeader('Content-Disposition', `attachment; filename="${this.filename}.${this.format}"`);
    this.res.setHeader('Cache-Control', 'no-store');
    await this.send(this.format === 'csv' ? stringify([this.columns as string[]], { record_delimiter: 'windows' }) : '[');
  }

  async write(batch: ExportRow[]): Promise<void> {
    if (batch.length === 0) return;
    let chunk: string;
    if (this.format === 'csv') {
      const cell = (row: ExportRow, column: string) => {
        const format = this.csvFormats[column];
        return csvCell(format && row[column] != null ? format(row[column] as never) : row[column]);
      };
      chunk = stringify(batch.map((row) => this.columns.map((c) => cell(row, c))), { record_delimiter: 'windows' });
    } else {
      const records = batch.map((row) => JSON.stringify(Object.fromEntries(this.columns.map((c) => [c, row[c] ?? null]))));
      chunk = `${this.rows === 0 ? '' : ','}\n${records.join(',\n')}`;
    }
    this.rows += batch.length;
    await this.send(chunk);
  }

  async end(): Promise<void> {
    if (this.format === 'json') await this.send(this.rows === 0 ? ']\n' : '\n]\n');
    this.res.end();
  }

  private async send(text: string): Promise<void> {
    if (this.res.destroyed) throw new Error('the client went away');
    if (this.res.write(text)) return;
    // Wait for the client to take what was written, or to go away; then drop both listeners.
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }
}
