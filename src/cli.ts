// `npm run cli -- <command>`: operator commands against the service's PostgreSQL (the configured
// one, or the embedded one of the data folder). `help`, `--help` and `<command> --help` print usage.
import { parseArgs } from 'node:util';
import { MIN_PASSWORD_LENGTH } from './features/auth/password-hasher.js';
import { ROLES, type Role } from './features/auth/roles.js';

interface Command {
  usage: string;
  help: string;
}

// Every command with its help; the general usage and the dispatch are derived from this table.
const COMMANDS: Record<string, Command> = {
  'keys create': {
    usage: 'keys create --name NAME [--expires-at ISO-8601]',
    help: 'Creates an integration key (every role; for CMDB/ITSM sync and scripts) and prints it alone on standard output, once: it is stored only as a keyed hash. Send it as "Authorization: Bearer KEY".',
  },
  'keys list': {
    usage: 'keys list',
    help: 'Lists the integration keys, one per line: id, name, hint, status, created, expires, last used (never the key).',
  },
  'keys revoke': {
    usage: 'keys revoke ID',
    help: 'Revokes the integration key with this id (from keys list); requests with it are refused from then on.',
  },
  'users create': {
    usage: 'users create --username NAME --role ROLE [--role ROLE ...] [--display-name NAME]',
    help: `Creates a user with these roles; the password (at least ${MIN_PASSWORD_LENGTH} characters) is read from standard input. Roles: ${ROLES.join(', ')}.`,
  },
};

const USAGE = `usage: npm run cli -- <command> [options]      (or: node dist/cli.js <command> [options])
commands:
${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n')}
  help [COMMAND]                 this text, or one command's help (also: COMMAND --help)
roles: ${ROLES.join(', ')}
The CLI reads the service's settings (environment variables, config/service.yaml): with
DATABASE_URL unset it opens the embedded PostgreSQL of the data folder (SERVICE_DATA_DIR, ./data),
the running service's when it runs, starting and stopping it otherwise.`;

const commandHelp = (name: string): string => `usage: npm run cli -- ${COMMANDS[name]?.usage}\n${COMMANDS[name]?.help}`;

class UsageError extends Error {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** The help asked for, or undefined when the arguments ask for a command to run. */
function helpText(argv: string[]): string | undefined {
  const wantsHelp = (a: string) => a === '--help' || a === '-h';
  const [first] = argv;
  if (first === undefined) return undefined;
  if (first === 'help' || wantsHelp(first)) {
    const name = argv.slice(1, 3).join(' ');
    if (!name) return USAGE;
    if (!COMMANDS[name]) throw new UsageError(`no command "${name}"\n${USAGE}`);
    return commandHelp(name);
  }
  if (!argv.some(wantsHelp)) return undefined;
  const name = argv.slice(0, 2).join(' ');
  return COMMANDS[name] ? commandHelp(name) : USAGE;
}

async function main(argv: string[]): Promise<void> {
  const help = helpText(argv);
  if (help) {
    process.stdout.write(`${help}\n`);
    return;
  }
  const [group, command, ...rest] = argv;
  if (!COMMANDS[`${group} ${command}`]) throw new UsageError(USAGE);
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

  // Loaded only when a command runs: help answers without them.
  // Of the features, only auth and credentials (as the service builds them): no graph, no discovery.
  const [{ COMMAND_LINE_ACTOR }, { authFeature }, { credentialsFeature }, { buildFeatures }, { systemClock }, { loadConfig }, { createLogger }, { openDatabase }, { migrateToLatest }] = await Promise.all([
    import('./features/auth/audit-log.js'),
    import('./features/auth/auth-feature.js'),
    import('./features/credentials/credentials-feature.js'),
    import('./platform/feature.js'),
    import('./platform/clock.js'),
    import('./platform/config.js'),
    import('./platform/logger.js'),
    import('./platform/postgres/open-database.js'),
    import('./platform/postgres/postgres-client.js'),
  ]);
  const config = loadConfig({ env: process.env });
  // Logs go to standard error: standard output carries only the command's answer.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  const { db, close } = await openDatabase(config, logger);
  try {
    await migrateToLatest(db);
    const { tokens, users } = buildFeatures([authFeature, credentialsFeature], { db, config, logger, clock: systemClock });
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
