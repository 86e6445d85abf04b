// A YAML file is parsed once per version: later reads take the JSON kept under its digest, an
// edited file is parsed afresh, and old versions do not pile up.
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseYamlFileCached } from '../../src/platform/yaml-file-cache.js';

let dir: string;
let file: string;
let cacheDir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'yaml-cache-'));
  file = path.join(dir, 'api.yaml');
  cacheDir = path.join(dir, 'cache');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('parses the YAML, keeps it as JSON, and reads the JSON next time', () => {
  writeFileSync(file, 'openapi: 3.0.3\npaths:\n  /a: { get: { operationId: getA } }\n');
  expect(parseYamlFileCached(file, cacheDir)).toEqual({ openapi: '3.0.3', paths: { '/a': { get: { operationId: 'getA' } } } });
  const [kept] = readdirSync(cacheDir);
  expect(kept).toMatch(/^api-[0-9a-f]{32}\.json$/);
  // What is read the second time is the kept JSON, not the YAML parsed again.
  writeFileSync(path.join(cacheDir, kept as string), JSON.stringify({ readFrom: 'cache' }));
  expect(parseYamlFileCached(file, cacheDir)).toEqual({ readFrom: 'cache' });
});

it('parses an edited file afresh, and keeps no more than eight versions', () => {
  const seen = new Set<string>();
  for (let version = 1; version <= 10; version++) {
    writeFileSync(file, `version: ${version}\n`);
    expect(parseYamlFileCached(file, cacheDir)).toEqual({ version });
    // Each version a second older than the next: files written within one tick of the clock would tie.
    for (const f of readdirSync(cacheDir).filter((f) => !seen.has(f))) {
      seen.add(f);
      utimesSync(path.join(cacheDir, f), version, version);
    }
  }
  const kept = readdirSync(cacheDir);
  expect(kept).toHaveLength(8);
  expect(kept.map((f) => JSON.parse(readFileSync(path.join(cacheDir, f), 'utf8')).version).sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
});

it('parses the YAML each time where the cache cannot be written', () => {
  writeFileSync(file, 'a: 1\n');
  writeFileSync(path.join(dir, 'not-a-folder'), '');
  expect(parseYamlFileCached(file, path.join(dir, 'not-a-folder', 'cache'))).toEqual({ a: 1 });
});
