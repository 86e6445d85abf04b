// `npm run cli|demo|bench|migrate`: runs dist/<entry>.js, compiling first only when a source is
// newer than the last build (without an entry, as in `npm run build`, it only builds) (tsc is incremental, so even then only what changed is rebuilt). A
// stamp written after each successful build is the reference: tsc leaves its own build info
// untouched when nothing needed emitting, which would otherwise make every later run compile again.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const [entry, ...args] = process.argv.slice(2);

function newestChange(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestChange(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const sources = Math.max(
  newestChange(path.join(root, 'src')),
  ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => statSync(path.join(root, f)).mtimeMs),
);
if (!existsSync(stamp) || statSync(stamp).mtimeMs < sources) {
  const started = Date.now();
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
}
if (!entry) process.exit(0);
// The entry reads its arguments from process.argv: give it its own, as `node dist/<entry>.js` would.
process.argv = [process.argv[0], path.join(root, 'dist', `${entry}.js`), ...args];
await import(pathToFileURL(process.argv[1]).href);
