// Writes an export to the client as it is produced, waiting for the client to take each chunk
// (back-pressure), so that a slow reader never makes the service hold the whole result. The
// headers go out only when the data is ready to flow: a failure before that is still a
// problem+json answer.
import type { Response } from 'express';
import { neutralisedText } from './csv-neutralisation.js';

export type ExportFormat = 'csv' | 'json';
export type ExportRow = Record<string, unknown>;

const NEEDS_QUOTES = /[",\r\n]/;

function textCell(text: string): string {
  const safe = neutralisedText(text);
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One value as an RFC 4180 field: lists as items joined by ';' (each item neutralised), objects as JSON. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string') return textCell(value);
  if (Array.isArray(value)) return textCell(value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : neutralisedText(String(v)))).join(';'));
  if (typeof value === 'object') return textCell(JSON.stringify(value));
  return String(value);
}

export function csvRecord(cells: unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export class ExportWriter {
  /** Rows written so far (for the metrics). */
  rows = 0;

  constructor(
    private readonly res: Response,
    private readonly format: ExportFormat,
    private readonly filename: string,
  ) {}

  /** Sends the status and headers. */
  begin(): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', this.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
    this.res.setHeader('Content-Disposition', `attachment; filename="${this.filename}.${this.format}"`);
    this.res.setHeader('Cache-Control', 'no-store');
  }

  /** Everything `source` gives, chunk by chunk as the client takes it. */
  async pipeFrom(source: AsyncIterable<Buffer | string>): Promise<void> {
    for await (const chunk of source) await this.send(chunk);
  }

  end(): void {
    this.res.end();
  }

  /** Counts rows that were written. */
  counted(rows: number): void {
    this.rows += rows;
  }

  async send(chunk: Buffer | string): Promise<void> {
    if (this.res.destroyed) throw new Error('the client went away');
    if (this.res.write(chunk)) return;
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
