// SNMP (v2c, v3): the system group with each credential in turn (the first that answers wins),
// then bounded walks of the tables the mapping reads. A table cut by the row cap, the host's time
// budget or an error is recorded and leaves its scope out of `complete`; the rest is kept.
import type { ConnectorResult, ObservedScope } from '../../host-observation.js';
import type { RunError } from '../../run-record.js';
import type { SnmpErrorCode } from './snmp-errors.js';
import { toObservation, type SnmpValue } from './snmp-mapping.js';
import { COLUMNS, SNMP_SCOPES, SYSTEM, TABLES } from './snmp-mibs.js';
import { failureOf, getScalars, openSession, walkColumns, type Failure, type SnmpCredential } from './snmp-session.js';
import type snmp from 'net-snmp';

export interface SnmpOptions {
  /** Per request, and the number of resends after a time-out. */
  timeoutMs: number;
  retries: number;
  /** Rows read per table at most. */
  maxRows: number;
  /** Time for the whole host, from the call: no table walk sends a request after it. */
  budgetMs: number;
}

// When no credential gets in, the code that says the most: a refusal, then a bad name, then an
// agent error; silence only when nothing else was heard.
const FAILURE_PRECEDENCE: SnmpErrorCode[] = ['SNMP_AUTH_FAILED', 'DNS_FAILURE', 'SNMP_ERROR', 'SNMP_NO_ANSWER'];

export async function collectSnmp(address: string, port: number, credentials: SnmpCredential[], options: SnmpOptions): Promise<ConnectorResult> {
  const deadline = Date.now() + options.budgetMs;
  const record = (stage: string, code: SnmpErrorCode, message: string): RunError => ({ address, method: 'SNMP', stage, code, message });
  if (credentials.length === 0) {
    return { errors: [record('authenticate', 'NO_CREDENTIALS', 'No SNMP v2c or v3 credential is listed on the target or matches the address.')] };
  }
  const failures: { credential: SnmpCredential; failure: Failure }[] = [];
  for (const credential of credentials) {
    const attempt = await probe(address, port, credential, options);
    if ('failure' in attempt) {
      failures.push({ credential, failure: attempt.failure });
      continue;
    }
    try {
      const { varbinds, complete, errors } = await walkTables(attempt.session, attempt.system, options, deadline);
      return { observation: toObservation(address, varbinds, complete), errors: errors.map((e) => record('collect', e.code, e.reason)), credentialId: credential.id };
    } finally {
      attempt.session.close();
    }
  }
  const code = FAILURE_PRECEDENCE.find((c) => failures.some((f) => f.failure.code === c)) ?? 'SNMP_ERROR';
  const tried = failures.map(({ credential, failure }) => `${credential.id} (${credential.kind === 'SNMP_V2C' ? 'v2c' : 'v3'}): ${failure.reason}`).join('; ');
  const silence = failures.some((f) => f.failure.code === 'SNMP_NO_ANSWER')
    ? ` No answer means down or filtered, or a wrong v2c community or v3 privacy key: agents drop those silently (waited ${options.timeoutMs} ms, ${options.retries + 1} tries).`
    : '';
  return { errors: [record(code === 'SNMP_AUTH_FAILED' ? 'authenticate' : 'connect', code, `SNMP at ${address}:${port}: ${tried}.${silence}`)] };
}

/** The system group with one credential: the session that got it, or why none did. */
async function probe(address: string, port: number, credential: SnmpCredential, options: SnmpOptions): Promise<{ session: snmp.Session; system: Map<string, SnmpValue> } | { failure: Failure }> {
  let session: snmp.Session | undefined;
  try {
    session = openSession(address, credential, { port, timeoutMs: options.timeoutMs, retries: options.retries });
    return { session, system: await getScalars(session, Object.values(SYSTEM)) };
  } catch (error) {
    session?.close();
    return { failure: failureOf(error) };
  }
}

interface Collected {
  varbinds: Map<string, SnmpValue>;
  complete: Set<ObservedScope>;
  errors: Failure[];
}

async function walkTables(session: snmp.Session, system: Map<string, SnmpValue>, options: SnmpOptions, deadline: number): Promise<Collected> {
  const varbinds = new Map(system);
  const incomplete = new Set<string>();
  const errors: Failure[] = [];
  let stopped = false;
  for (const table of TABLES) {
    if (stopped) {
      incomplete.add(table.name);
      continue;
    }
    try {
      const walk = await walkColumns(session, table.columns.map((c) => COLUMNS[c]), { maxRows: options.maxRows, deadline });
      for (const [oid, value] of walk.varbinds) varbinds.set(oid, value);
      if (walk.cut) incomplete.add(table.name);
      if (walk.cut === 'rows') {
        errors.push({ code: 'SNMP_TABLE_TRUNCATED', reason: `${table.name} has more than ${options.maxRows} rows: the first ${options.maxRows} are kept` });
      } else if (walk.cut === 'deadline') {
        stopped = true;
        errors.push({ code: 'HOST_TIMEOUT', reason: `the host's time budget of ${options.budgetMs} ms ran out in ${table.name}: the tables after it were not read` });
      }
    } catch (error) {
      const { code, reason } = failureOf(error);
      incomplete.add(table.name);
      // An agent that stopped answering mid-walk will not answer the next table either.
      stopped = code === 'SNMP_NO_ANSWER';
      errors.push({ code, reason: `${table.name}: ${reason}${stopped ? '; the tables after it were not read' : ''}` });
    }
  }
  const complete = new Set(SNMP_SCOPES.filter((scope) => !TABLES.some((t) => t.scopes.includes(scope) && incomplete.has(t.name))));
  return { varbinds, complete, errors };
}
