// A read of a directory's computer objects over LDAP (ldapts): TLS always (LDAPS, or StartTLS on
// the plain port), the server certificate checked (against the trusted authorities unless the
// target says otherwise) and pinned at first contact before any credential is sent, then a simple
// bind with each LDAP_BIND credential in turn (a refusal moves on to the next), the root DSE, and
// one subtree search of the computers under the credential's base DN in pages (the paged results
// control, RFC 2696), at most maxEntries in all. Every session checks that the server shows the
// certificate that was checked, at its handshake, before the bind is written.
import net from 'node:net';
import tls from 'node:tls';
import { Client, InvalidCredentialsError, ResultCodeError, SizeLimitExceededError } from 'ldapts';
import type { RevealedCredential } from '../../../credentials/credential-service.js';
import type { Pins } from '../../host-state-store.js';
import { certificateOf, type PresentedCertificate } from '../tls-peer.js';
import { networkErrorCode } from '../../shared-scan-errors.js';
import { COMPUTER_ATTRIBUTES, COMPUTER_FILTER, type DirectoryEntry } from './ldap-computers.js';
import type { LdapErrorCode } from './ldap-errors.js';

export type LdapSecurity = 'ldaps' | 'starttls';

export interface DirectoryReadOptions {
  host: string;
  port: number;
  security: LdapSecurity;
  verifyCertificate: boolean;
  caCertificate?: string;
  /** The connect and each operation (a page) at most. */
  timeoutMs: number;
  pageSize: number;
  maxEntries: number;
  deadline: number;
}

export interface DirectoryFailure {
  code: LdapErrorCode;
  stage: string;
  message: string;
}

/** What a read gave: every computer (only when complete), the root DSE, the pages, or why it stopped. */
export interface DirectoryRead {
  entries: DirectoryEntry[];
  rootDse?: DirectoryEntry;
  baseDn?: string;
  pages: number;
  credentialId?: string;
  failure?: DirectoryFailure;
}

/** The codes of an address that could not be reached: their stage is the connect, whichever step met them. */
const CONNECT_CODES = new Set<LdapErrorCode>(['CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'HOST_UNREACHABLE', 'DNS_FAILURE']);
const ROOT_DSE_ATTRIBUTES = ['dnsHostName', 'vendorName', 'objectClass', 'forestFunctionality', 'domainControllerFunctionality'];

class LdapFailure extends Error {
  constructor(readonly code: LdapErrorCode, message: string) {
    super(message);
  }
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0]?.slice(0, 200) : 'unknown error') ?? 'unknown error';

/** A socket or TLS error as a code: the network's, else a TLS failure. */
function transportFailure(error: unknown, where: string): LdapFailure {
  if (error instanceof LdapFailure) return error;
  const errno = (error as NodeJS.ErrnoException).code;
  const code = networkErrorCode(errno);
  if (code) return new LdapFailure(code, `${where}: ${errno}.`);
  if (/timeout/i.test(firstLine(error))) return new LdapFailure('CONNECTION_TIMEOUT', `${where} did not answer in time.`);
  return new LdapFailure('LDAP_TLS_FAILED', `TLS with ${where} failed: ${firstLine(error)}`);
}

function tlsOptions(options: DirectoryReadOptions): tls.ConnectionOptions {
  return {
    rejectUnauthorized: false,
    ...(options.caCertificate ? { ca: [...tls.rootCertificates, options.caCertificate] } : {}),
    ...(net.isIP(options.host) ? {} : { servername: options.host }),
  };
}

/**
 * tls.connect as the client calls it (host and port for LDAPS; options with the socket for
 * StartTLS), reporting the server's certificate at the handshake; `expected` set, a socket that shows
 * another one is destroyed there, before the client can write to it.
 */
function secureConnector(options: DirectoryReadOptions, seen: (socket: tls.TLSSocket) => void, expected?: string): typeof tls.connect {
  return ((...args: unknown[]) => {
    const socket = (tls.connect as (...a: unknown[]) => tls.TLSSocket)(...args);
    socket.once('secureConnect', () => {
      seen(socket);
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      if (expected && fingerprint !== expected) socket.destroy(new LdapFailure('LDAP_CERTIFICATE_CHANGED', `The certificate of ${options.host}:${options.port} changed during the read (now ${fingerprint}); nothing more was sent.`));
    });
    return socket;
  }) as typeof tls.connect;
}

function clientOf(options: DirectoryReadOptions, connector: typeof tls.connect): Client {
  const { host, port, security, timeoutMs } = options;
  const url = `${security === 'ldaps' ? 'ldaps' : 'ldap'}://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
  // tlsOptions make ldapts connect with TLS from the start: LDAPS only.
  return new Client({ url, timeout: timeoutMs, connectTimeout: timeoutMs, ...(security === 'ldaps' ? { tlsOptions: tlsOptions(options) } : {}), createSecureConnection: connector });
}

/** Sets up TLS on a new client (LDAPS: an anonymous root DSE read makes the connection; StartTLS: the request), sending no credential. */
async function secure(client: Client, options: DirectoryReadOptions): Promise<void> {
  const where = `${options.host}:${options.port}`;
  try {
    if (options.security === 'starttls') await client.startTLS(tlsOptions(options));
    else await client.search('', { scope: 'base', attributes: ['1.1'] }).catch((error: unknown) => {
      // A refusal is an LDAP answer over TLS, which is all this asks for.
      if (!(error instanceof ResultCodeError)) throw error;
    });
  } catch (error) {
    if (error instanceof ResultCodeError) throw new LdapFailure('LDAP_TLS_FAILED', `${where} refused StartTLS: ${firstLine(error)}`);
    throw transportFailure(error, where);
  }
}

/** The server certificate, checked (trust, name) when asked and pinned (or compared with its pin). */
async function verifyCertificate(options: DirectoryReadOptions, pins: Pins): Promise<string> {
  const where = `${options.host}:${options.port}`;
  let seen: PresentedCertificate | undefined;
  const client = clientOf(options, secureConnector(options, (socket) => {
    seen = certificateOf(socket, options.host);
  }));
  try {
    await secure(client, options);
  } finally {
    await client.unbind().catch(() => undefined);
  }
  if (!seen) throw new LdapFailure('LDAP_TLS_FAILED', `${where} presented no certificate.`);
  const { fingerprint, subject, authorized, reason = 'unknown reason' } = seen;
  if (options.verifyCertificate && !authorized) {
    throw new LdapFailure('LDAP_CERTIFICATE_UNTRUSTED', `The certificate of ${where} (${fingerprint}) is not trusted: ${reason}. Add its authority as the target's LDAP caCertificate, or set verifyCertificate to false.`);
  }
  const pinned = await pins.pinOrCompare('TLS_CERTIFICATE', options.host, options.port, { fingerprint, detail: subject });
  if (pinned) {
    throw new LdapFailure('LDAP_CERTIFICATE_CHANGED', `The certificate of ${where} is now ${fingerprint}, not the one pinned at first contact (${pinned.fingerprint}); no credential was sent. If the server's certificate was replaced, accept the new one (POST /api/v1/discovery/pins/accept).`);
  }
  return fingerprint;
}

/** The computers under the base DN, page by page, at most maxEntries (one more is a size limit). */
async function searchComputers(client: Client, baseDn: string, options: DirectoryReadOptions, read: DirectoryRead): Promise<void> {
  const entries: DirectoryEntry[] = [];
  const pages = client.searchPaginated(baseDn, {
    scope: 'sub',
    filter: COMPUTER_FILTER,
    attributes: [...COMPUTER_ATTRIBUTES],
    explicitBufferAttributes: ['objectGUID'],
    paged: { pageSize: options.pageSize },
    timeLimit: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
  });
  for await (const page of pages) {
    read.pages++;
    entries.push(...(page.searchEntries as DirectoryEntry[]));
    if (entries.length > options.maxEntries) throw new LdapFailure('LDAP_SIZE_LIMIT', `The directory holds more than ${options.maxEntries} computers under ${baseDn} (settings.LDAP.maxEntries).`);
    if (Date.now() > options.deadline) throw new LdapFailure('HOST_TIMEOUT', `The per-host time-out ended after ${entries.length} computers (${read.pages} pages).`);
  }
  read.entries = entries;
}

export async function readDirectory(credentials: RevealedCredential[], options: DirectoryReadOptions, pins: Pins): Promise<DirectoryRead> {
  const read: DirectoryRead = { entries: [], pages: 0 };
  const fail = (stage: string, error: unknown): DirectoryRead => {
    const failure = error instanceof LdapFailure ? error : error instanceof SizeLimitExceededError ? new LdapFailure('LDAP_SIZE_LIMIT', `The server stopped the search at its own size limit: ${firstLine(error)}`)
      : error instanceof ResultCodeError ? new LdapFailure('LDAP_SEARCH_FAILED', `The search failed: ${firstLine(error)}`) : transportFailure(error, `${options.host}:${options.port}`);
    return { ...read, entries: [], failure: { code: failure.code, stage: CONNECT_CODES.has(failure.code) ? 'connect' : stage, message: failure.message } };
  };
  let fingerprint: string;
  try {
    fingerprint = await verifyCertificate(options, pins);
  } catch (error) {
    return fail('verify-certificate', error);
  }
  const refused: string[] = [];
  for (const credential of credentials) {
    const client = clientOf(options, secureConnector(options, () => undefined, fingerprint));
    let stage = 'connect';
    try {
      await secure(client, options);
      stage = 'authenticate';
      await client.bind(String(credential.settings.bindDn), credential.secrets.password ?? '');
      read.credentialId = credential.id;
      stage = 'collect';
      const dse = await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ROOT_DSE_ATTRIBUTES });
      read.rootDse = dse.searchEntries[0] as DirectoryEntry | undefined;
      read.baseDn = String(credential.settings.baseDn);
      await searchComputers(client, read.baseDn, options, read);
      return read;
    } catch (error) {
      if (error instanceof InvalidCredentialsError) {
        refused.push(`Credential "${credential.name}" (${String(credential.settings.bindDn)}) was refused.`);
        continue;
      }
      return fail(stage, error);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
  return { ...read, failure: { code: 'LDAP_BIND_REFUSED', stage: 'authenticate', message: `Every credential offered was refused: ${refused.join(' ')}`.slice(0, 1000) } };
}
