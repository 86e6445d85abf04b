// net-snmp, promised and bounded: a session per credential, GET of scalars, and column walks by
// GETBULK that stop at a row cap or a deadline. Errors are turned into codes and messages built
// from our own words: net-snmp's own messages can quote the community or key digests.
import net from 'node:net';
import snmp from 'net-snmp';
import type { SnmpErrorCode } from './snmp-errors.js';
import type { SnmpValue } from './snmp-mapping.js';

/** A credential as the vault hands it over: decrypted. Its secrets never reach a message. */
export interface SnmpCredential {
  id: string;
  kind: 'SNMP_V2C' | 'SNMP_V3';
  settings: Record<string, unknown>;
  secrets: Record<string, string>;
}

export interface SessionSettings {
  port: number;
  timeoutMs: number;
  retries: number;
}

const AUTH_PROTOCOLS: Record<string, number> = {
  MD5: snmp.AuthProtocols.md5, SHA: snmp.AuthProtocols.sha, SHA224: snmp.AuthProtocols.sha224,
  SHA256: snmp.AuthProtocols.sha256, SHA384: snmp.AuthProtocols.sha384, SHA512: snmp.AuthProtocols.sha512,
};
const PRIV_PROTOCOLS: Record<string, number> = {
  DES: snmp.PrivProtocols.des, AES: snmp.PrivProtocols.aes, AES256B: snmp.PrivProtocols.aes256b, AES256R: snmp.PrivProtocols.aes256r,
};

/** A problem we describe ourselves (a credential unfit for use, an agent breaking the protocol). */
class SnmpProblem extends Error {
  constructor(readonly code: SnmpErrorCode, message: string) {
    super(message);
  }
}

function v3User(credential: SnmpCredential): snmp.User {
  const { username, securityLevel, authProtocol, privProtocol } = credential.settings;
  const level = snmp.SecurityLevel[securityLevel as keyof typeof snmp.SecurityLevel];
  if (typeof username !== 'string' || level === undefined) throw new SnmpProblem('SNMP_ERROR', 'the v3 credential has no username or security level');
  const user: snmp.User = { name: username, level };
  if (level !== snmp.SecurityLevel.noAuthNoPriv) {
    user.authProtocol = AUTH_PROTOCOLS[String(authProtocol)];
    user.authKey = credential.secrets.authKey;
    if (!user.authProtocol || !user.authKey) throw new SnmpProblem('SNMP_ERROR', 'the v3 credential lacks its auth protocol or auth key');
  }
  if (level === snmp.SecurityLevel.authPriv) {
    user.privProtocol = PRIV_PROTOCOLS[String(privProtocol)];
    user.privKey = credential.secrets.privKey;
    if (!user.privProtocol || !user.privKey) throw new SnmpProblem('SNMP_ERROR', 'the v3 credential lacks its privacy protocol or privacy key');
  }
  return user;
}

/** A session for one credential; throws SnmpProblem when the credential cannot be used. */
export function openSession(target: string, credential: SnmpCredential, { port, timeoutMs, retries }: SessionSettings): snmp.Session {
  const options: snmp.SessionOptions = { port, timeout: timeoutMs, retries, backoff: 1, transport: net.isIPv6(target) ? 'udp6' : 'udp4' };
  let session: snmp.Session;
  if (credential.kind === 'SNMP_V2C') {
    const community = credential.secrets.community;
    if (!community) throw new SnmpProblem('SNMP_ERROR', 'the v2c credential has no community');
    session = snmp.createSession(target, community, { ...options, version: snmp.Version2c });
  } else {
    const context = credential.settings.contextName;
    session = snmp.createV3Session(target, v3User(credential), { ...options, ...(typeof context === 'string' ? { context } : {}) });
  }
  // net-snmp emits 'error' for a datagram it cannot parse; the request it belonged to then times out.
  session.on('error', () => undefined);
  return session;
}

function valueOf(varbind: snmp.Varbind): SnmpValue | undefined {
  const { value } = varbind;
  return typeof value === 'string' || typeof value === 'number' || Buffer.isBuffer(value) ? value : undefined;
}

/** The scalars that exist (an agent answers noSuchObject for the others). */
export function getScalars(session: snmp.Session, oids: string[]): Promise<Map<string, SnmpValue>> {
  return new Promise((resolve, reject) => {
    session.get(oids, (error, varbinds) => {
      if (error) return reject(error);
      const found = new Map<string, SnmpValue>();
      for (const varbind of varbinds) {
        const value = snmp.isVarbindError(varbind) ? undefined : valueOf(varbind);
        if (value !== undefined) found.set(varbind.oid, value);
      }
      resolve(found);
    });
  });
}

function getBulk(session: snmp.Session, oids: string[], repetitions: number): Promise<snmp.Varbind[][]> {
  return new Promise((resolve, reject) => session.getBulk(oids, 0, repetitions, (error, varbinds) => (error ? reject(error) : resolve(varbinds))));
}

function compareOids(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
}

export interface WalkLimits {
  maxRows: number;
  /** Date.now() after which no request is sent. */
  deadline: number;
}

export interface Walk {
  varbinds: [string, SnmpValue][];
  /** Why the walk stopped before the end of a column: the row cap or the deadline. */
  cut?: 'rows' | 'deadline';
}

// Varbinds asked for per GETBULK: a few dozen fit one unfragmented datagram for typical values;
// an agent that cannot fit them answers fewer, which the walk handles.
const VARBINDS_PER_REQUEST = 48;

/** Walks columns side by side (one GETBULK advances each), each to its end or to `maxRows` rows. */
export async function walkColumns(session: snmp.Session, bases: string[], { maxRows, deadline }: WalkLimits): Promise<Walk> {
  const varbinds: [string, SnmpValue][] = [];
  const cursors = bases.map((base) => ({ base, next: base, rows: 0, done: false }));
  // A column that reaches the cap stops; the others go on to it too, so that the rows kept are whole.
  let capped = false;
  for (;;) {
    const active = cursors.filter((c) => !c.done);
    if (active.length === 0) return capped ? { varbinds, cut: 'rows' } : { varbinds };
    if (Date.now() >= deadline) return { varbinds, cut: 'deadline' };
    const repetitions = Math.max(1, Math.min(maxRows + 1, Math.floor(VARBINDS_PER_REQUEST / active.length)));
    const answer = await getBulk(session, active.map((c) => c.next), repetitions);
    let progressed = false;
    for (const [i, cursor] of active.entries()) {
      for (const varbind of answer[i] ?? []) {
        progressed = true;
        if (snmp.isVarbindError(varbind) || !varbind.oid.startsWith(`${cursor.base}.`)) {
          cursor.done = true;
          break;
        }
        if (compareOids(varbind.oid, cursor.next) <= 0) throw new SnmpProblem('SNMP_ERROR', `the agent answered OIDs out of order after ${cursor.next}`);
        if (cursor.rows === maxRows) {
          cursor.done = capped = true;
          break;
        }
        cursor.rows++;
        cursor.next = varbind.oid;
        const value = valueOf(varbind);
        if (value !== undefined) varbinds.push([varbind.oid, value]);
      }
    }
    if (!progressed) throw new SnmpProblem('SNMP_ERROR', `the agent answered a GETBULK with no varbinds for ${active[0]?.next}`);
  }
}

export interface Failure {
  code: SnmpErrorCode;
  reason: string;
}

// The USM report reasons (RFC 3414 usmStats) as net-snmp names them: fixed strings, safe to show.
const USM_REASONS = ['Unsupported Security Level', 'Not In Time Window', 'Unknown User Name', 'Unknown Engine ID', 'Wrong Digest', 'Decryption Error'];
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME']);

/** What went wrong, in words that never quote a community, key or digest. */
export function failureOf(error: unknown): Failure {
  if (error instanceof SnmpProblem) return { code: error.code, reason: error.message };
  const { name, message, code } = error as Error & { code?: unknown };
  if (name === 'RequestTimedOutError') return { code: 'SNMP_NO_ANSWER', reason: 'no answer' };
  if (name === 'ResponseInvalidError' && (code === snmp.ResponseInvalidCode.EAuthFailure || code === snmp.ResponseInvalidCode.ECouldNotDecrypt)) {
    const usm = USM_REASONS.find((r) => message.startsWith(r));
    const fallback = code === snmp.ResponseInvalidCode.EAuthFailure ? 'the answer failed authentication (wrong auth key?)' : 'the answer could not be decrypted (wrong privacy key?)';
    return { code: 'SNMP_AUTH_FAILED', reason: usm ? `the agent reported ${usm}` : fallback };
  }
  if (name === 'ResponseInvalidError') return { code: 'SNMP_ERROR', reason: `invalid answer (${snmp.ResponseInvalidCode[Number(code)] ?? 'unknown'})` };
  // RequestFailedError: the agent's error-status and the OID it names.
  if (name === 'RequestFailedError') return { code: 'SNMP_ERROR', reason: `the agent answered ${message}` };
  if (typeof code === 'string' && DNS_CODES.has(code)) return { code: 'DNS_FAILURE', reason: 'the name does not resolve' };
  return { code: 'SNMP_ERROR', reason: typeof code === 'string' ? `network error ${code}` : 'unexpected error' };
}
