// A secret of this installation kept in a file of the data folder (mode 0600), like the local
// stores' passwords: read when it exists, generated at the first start otherwise.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The secret in `file`, and whether this call generated it (an installation that had none). */
export function localSecretFile(file: string): { secret: string; generated: boolean } {
  if (existsSync(file)) return { secret: readFileSync(file, 'utf8').trim(), generated: false };
  const secret = randomBytes(24).toString('base64url');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return { secret, generated: true };
}
