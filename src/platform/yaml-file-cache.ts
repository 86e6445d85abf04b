// A YAML file parsed once per version: the parsed value is kept as JSON in a cache folder, named by
// the YAML's digest, so that an edited file is parsed afresh and an unchanged one is only read
// (JSON reads some ten times faster than YAML parses). Where the cache cannot be written (a
// read-only install), the file is parsed each time.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Versions kept per cache folder: checkouts of other versions may share it. */
const VERSIONS_KEPT = 8;

export function parseYamlFileCached(file: string, cacheDir: string): unknown {
  const text = readFileSync(file, 'utf8');
  const stem = path.basename(file, path.extname(file));
  const cached = path.join(cacheDir, `${stem}-${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    const value: unknown = parseYaml(text);
    try {
      mkdirSync(cacheDir, { recursive: true });
      // Written whole, then renamed: processes that start side by side never read half of it.
      const partial = `${cached}.${randomUUID()}.partial`;
      writeFileSync(partial, JSON.stringify(value));
      renameSync(partial, cached);
      const versions = new RegExp(`^${stem.replace(/\W/g, '\\$&')}-[0-9a-f]{32}\\.json$`);
      const older = readdirSync(cacheDir).filter((f) => versions.test(f)).map((f) => path.join(cacheDir, f))
        .map((f) => ({ f, at: statSync(f).mtimeMs })).sort((a, b) => b.at - a.at).slice(VERSIONS_KEPT);
      for (const { f } of older) rmSync(f, { force: true });
    } catch {
      // Parsed again next time.
    }
    return value;
  }
}
