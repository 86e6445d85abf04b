// `npm run cli -- ...`: operator commands against the service's PostgreSQL.
//   keys create --name NAME [--expires-at ISO]   prints the new integration key alone
//   keys list                                    one line per key
//   keys revoke ID
//   users create --username U --role R [--role R ...] [--display-name NAME]   password on stdin
import { parseArgs } from 'node:util';
import { COMMAND_LINE_ACTOR } from './features/auth/audit-log.js';
import { MIN_PASSWORD_LENGTH } from './features/auth/password-hasher.js';
import { ROLES, type Role } from './features/auth/roles.js';
import { createAccessServices } from './container.js';
import { loadConfig } from './platform/config.js';
import { createLogger } from './platform/logger.js';
import { openDatabase } from './platform/postgres/open-database.js';
import { migrateToLatest } from './platform/postgres/postgres-client.js';

const USAGE = `usage: npm run cli -- <command>
  keys create --name NAME [--expires-at ISO-8601]
  keys list
  keys revoke ID
  users create --username NAME --role ROLE [--role ROLE ...] [--display-name NAME]   (password on standard input)
roles: ${ROLES.join(', ')}`;

class UsageError extends Error {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function main(argv: string[]): Promise<void> {
  const [group, command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'expires-at': { type: 'string' },
      username: { type: 'string' },
      role: { type: 'string', multiple: true },
      'display-name': { type: 'string' },
    },
  });
  const known = ['keys create', 'keys list', 'keys revoke', 'users create'];
  if (!known.includes(`${group} ${command}`)) throw new UsageError(USAGE);

  const config = loadConfig({ env: process.env });
  // Logs go to standard error: standard output carries only the command's answer.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  const { db, close } = await openDatabase(config, logger);
  try {
    await migrateToLatest(db);
    const { tokens, users } = createAccessServices(db, config, logger);
    if (group === 'keys' && command === 'create') {
      if (!values.name) throw new UsageError('keys create needs --name NAME');
      const expiresAt = values['expires-at'];
      if (expiresAt && Number.isNaN(Date.parse(expiresAt))) throw new UsageError('--expires-at must be an ISO 8601 date-time');
      const created = await tokens.createIntegrationKey(COMMAND_LINE_ACTOR, values.name, expiresAt);
      process.stdout.write(`${created.token}\n`);
    } else if (group === 'keys' && command === 'list') {
      const { rows } = await tokens.list({ kind: 'INTEGRATION_KEY' }, 0, 10_000);
      for (const k of rows) process.stdout.write(`${k.id}\t${k.name}\t${k.hint}\t${k.status}\tcreated ${k.createdAt}\texpires ${k.expiresAt ?? 'never'}\tlast used ${k.lastUsedAt ?? 'never'}\n`);
    } else if (group === 'keys' && command === 'revoke') {
      const id = positionals[0];
      if (!id) throw new UsageError('keys revoke needs the key id');
      const revoked = await tokens.revoke(COMMAND_LINE_ACTOR, id, { kind: 'INTEGRATION_KEY' });
      process.stdout.write(`${revoked.id}\t${revoked.name}\t${revoked.status}\n`);
    } else {
      const roles = (values.role ?? []) as Role[];
      if (!values.username || roles.length === 0) throw new UsageError('users create needs --username and at least one --role');
      const unknown = roles.filter((r) => !ROLES.includes(r));
      if (unknown.length) throw new UsageError(`unknown role ${unknown.join(', ')}; roles: ${ROLES.join(', ')}`);
      const password = await readStdin();
      if (password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`the password (standard input) must be at least ${MIN_PASSWORD_LENGTH} characters`);
      const user = await users.create(COMMAND_LINE_ACTOR, { username: values.username, password, roles, displayName: values['display-name'] ?? null });
      process.stdout.write(`${user.id}\n`);
    }
  } finally {
    await close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
