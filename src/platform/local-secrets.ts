// Keys the service needs when the operator set none (the local default): generated once into the
// data folder (mode 0600) and reused, so sessions, tokens and credentials survive a restart.
// Production sets them in the environment instead; the log says so once, when they are made.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from './config.js';
import type { Logger } from './logger.js';

export interface ServiceSecrets {
  sessionSecret: string;
  tokenPepper: string;
  /** Vault keys by version; the highest version encrypts. */
  vaultKeys: Map<number, Buffer>;
}

interface StoredSecrets {
  sessionSecret: string;
  tokenPepper: string;
  vaultKeys: string;
}

const FILE_NAME = 'local-secrets.json';

export function parseVaultKeys(text: string): Map<number, Buffer> {
  return new Map(
    text.split(',').map((pair) => {
      const [version, key] = pair.split(':');
      return [Number(version), Buffer.from(key as string, 'base64')] as const;
    }),
  );
}

function generated(): StoredSecrets {
  return {
    sessionSecret: randomBytes(32).toString('base64url'),
    tokenPepper: randomBytes(32).toString('base64url'),
    vaultKeys: `1:${randomBytes(32).toString('base64')}`,
  };
}

export function loadServiceSecrets(config: AppConfig, logger: Logger): ServiceSecrets {
  let local: StoredSecrets | undefined;
  if (!config.sessionSecret || !config.tokenPepper || !config.vaultKeys) {
    const file = path.resolve(config.dataDir, FILE_NAME);
    if (existsSync(file)) {
      local = JSON.parse(readFileSync(file, 'utf8')) as StoredSecrets;
    } else {
      local = generated();
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(local, null, 2)}\n`, { mode: 0o600 });
      logger.warn('generated local keys for sessions, API tokens and the credential vault; back this file up, or set the service.auth.* and service.vault.keys settings', { file });
    }
  }
  return {
    sessionSecret: config.sessionSecret ?? (local as StoredSecrets).sessionSecret,
    tokenPepper: config.tokenPepper ?? (local as StoredSecrets).tokenPepper,
    vaultKeys: parseVaultKeys(config.vaultKeys ?? (local as StoredSecrets).vaultKeys),
  };
}
