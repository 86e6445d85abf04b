// api.yaml passes Spectral's OpenAPI rules (.spectral.yaml) and Redocly's recommended rules
// (redocly.yaml) without a warning, says what a reader of the repository can follow, and is what the
// committed types of src/platform/http/api-types.ts were generated from.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { fromProjectRoot } from '../../src/platform/project-root.js';

const run = promisify(execFile);
const bin = (name: string) => fromProjectRoot('node_modules', '.bin', name);
// Neither tool may reach the network from a test.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };

/** The command's standard output, whether it exited 0 or not (both tools exit 1 on findings). */
async function output(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { cwd: fromProjectRoot(), env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

describe('api.yaml', () => {
  it('has no Spectral finding (spectral:oas)', async () => {
    const results = JSON.parse(await output(bin('spectral'), ['lint', 'api.yaml', '--format', 'json', '--quiet']) || '[]');
    expect(results.map((r: { code: string; path: string[]; message: string }) => `${r.code} ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  }, 120_000);

  it('has no Redocly finding (recommended)', async () => {
    const report = JSON.parse(await output(bin('redocly'), ['lint', 'api.yaml', '--format', 'json']));
    expect(report.problems.map((p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('gives every operation a description and cites nothing a reader of the repository lacks', () => {
    const text = readFileSync(fromProjectRoot('api.yaml'), 'utf8');
    expect(text).not.toMatch(/DESIGN\.md|\bspec \d/);
    const doc = parse(text);
    const undescribed = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { description?: string }>)
        .filter(([method, op]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method) && !op.description?.trim())
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undescribed).toEqual([]);
  });

  it('gives every parameter, every string and number in a body or an answer, and every CSV answer an example (Swagger UI shows it)', () => {
    const doc = parse(readFileSync(fromProjectRoot('api.yaml'), 'utf8'));
    const without: string[] = [];
    const walk = (node: unknown, path: string[]): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, [...path, String(i)]));
      if (typeof node !== 'object' || node === null) return;
      const o = node as Record<string, unknown>;
      const example = 'example' in o || 'examples' in o;
      const isParameter = typeof o.name === 'string' && typeof o.in === 'string' && path[1] !== 'securitySchemes';
      // A parameter's own schema is shown with the parameter's example.
      const ofParameter = path.at(-1) === 'schema' || (path.includes('parameters') && path.at(-1) === 'items');
      if (isParameter && !example) without.push(path.join('.'));
      // A body of text (CSV): the example is the media type's.
      const schema = o.schema as Record<string, unknown> | undefined;
      if (path.at(-2) === 'content' && schema?.type === 'string' && !example && !('example' in schema)) without.push(path.join('.'));
      if (['string', 'integer', 'number'].includes(o.type as string) && !example && !('enum' in o) && !ofParameter) without.push(path.join('.'));
      for (const [k, v] of Object.entries(o)) walk(v, [...path, k]);
    };
    walk(doc, []);
    expect(without).toEqual([]);
  });

  it('lists the Assets operations first in Swagger UI', () => {
    const doc = parse(readFileSync(fromProjectRoot('api.yaml'), 'utf8'));
    expect(doc.tags[0].name).toBe('Assets');
  });

  it('is what src/platform/http/api-types.ts was generated from (npm run api-types)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'api-types-'));
    try {
      await run(bin('openapi-typescript'), ['api.yaml', '--output', path.join(dir, 'api-types.ts')], { cwd: fromProjectRoot(), env });
      expect(readFileSync(fromProjectRoot('src', 'platform', 'http', 'api-types.ts'), 'utf8')).toBe(readFileSync(path.join(dir, 'api-types.ts'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
