// `npm start|cli|demo|bench|migrate`: runs dist/<entry>.js, compiling first only when a source is
// newer than the last build (tsc is incremental, so even then only what changed is rebuilt).
// Without an entry, as in `npm run build`, it only builds; `--web` builds the web UI (Vite, into
// web/dist) too, again only when something under web/ changed. A stamp written after each
// successful build is the reference: tsc leaves its own build info untouched when nothing needed
// emitting, which would otherwise make every later run compile again.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = process.argv[2] === '--web';
const [entry, ...args] = process.argv.slice(web ? 3 : 2);

/** The newest modification time under `dir`, leaving out the folders named in `skip`. */
function newestChange(dir, skip = []) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (skip.includes(full)) continue;
    newest = Math.max(newest, e.isDirectory() ? newestChange(full, skip) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Runs `node <script> ...scriptArgs` when a source is newer than `stamp`, then stamps. */
function buildIfChanged(sources, stamp, script, scriptArgs) {
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= sources) return;
  const started = Date.now();
  const run = spawnSync(process.execPath, [path.join(root, script), ...scriptArgs], { stdio: 'inherit', cwd: root });
  if (run.status !== 0) process.exit(run.status ?? 1);
  // Dated when the build began: a source saved during the build makes the next run build again.
  writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
  utimesSync(stamp, started / 1000, started / 1000);
}

const mtimeOf = (...files) => files.map((f) => statSync(path.join(root, f)).mtimeMs);
buildIfChanged(
  Math.max(newestChange(path.join(root, 'src')), ...mtimeOf('tsconfig.json', 'tsconfig.build.json', 'package-lock.json')),
  path.join(root, 'dist', '.build-stamp'),
  'node_modules/typescript/bin/tsc', ['-p', 'tsconfig.build.json'],
);
if (web) {
  // The web build empties web/dist first, so its stamp lives there and goes with the output.
  buildIfChanged(
    Math.max(newestChange(path.join(root, 'web'), ['dist', 'node_modules'].map((d) => path.join(root, 'web', d))), ...mtimeOf('package-lock.json')),
    path.join(root, 'web', 'dist', '.build-stamp'),
    'node_modules/vite/bin/vite.js', ['build', '--config', 'web/vite.config.mts'],
  );
}
if (!entry) process.exit(0);
// The entry reads its arguments from process.argv: give it its own, as `node dist/<entry>.js` would.
process.argv = [process.argv[0], path.join(root, 'dist', `${entry}.js`), ...args];
await import(pathToFileURL(process.argv[1]).href);
