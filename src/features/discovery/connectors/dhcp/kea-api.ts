// ISC Kea's control agent (kea-ctrl-agent): JSON commands over HTTP, forwarded to the DHCPv4
// server (`"service": ["dhcp4"]`), each answered by a list of { result, text, arguments }. The
// leases are read with lease4-get-page (the lease_cmds hook library), in address order, each page
// starting after the last address of the one before. Untrusted: every answer is bounded in octets
// and in time (the connect and each request by the time-out, the whole by the host's deadline),
// checked for its shape, and the pages must advance; the leases themselves are checked one by one
// by the caller (dhcp-leases.ts). Never throws for what the server or the network does.
import net from 'node:net';
import { boundedRequest, isBoundedFailure } from '../../../../platform/http/bounded-request.js';
import type { RevealedCredential } from '../../../credentials/credential-service.js';
import { networkErrorCode } from '../../shared-scan-errors.js';
import type { DhcpErrorCode } from './dhcp-errors.js';

/** The octets one answer may bring (a page of 10,000 leases is about 3 MB). */
export const MAX_ANSWER_OCTETS = 32 * 1024 * 1024;

// Kea's result codes (src/lib/cc/command_interpreter.h).
const RESULT_SUCCESS = 0;
const RESULT_UNSUPPORTED = 2;
const RESULT_EMPTY = 3;

export interface KeaOptions {
  host: string;
  port: number;
  /** The connect, and each request. */
  timeoutMs: number;
  deadline: number;
}

export interface KeaFailure {
  code: DhcpErrorCode;
  message: string;
}

interface KeaAnswer {
  result: number;
  text: string;
  arguments?: unknown;
}

export interface LeaseRead {
  /** The leases as the server gave them (not yet checked), those of a partial read too. */
  leases: unknown[];
  pages: number;
  /** Every lease was read: the last page came, none was left out. */
  complete: boolean;
  failure?: KeaFailure;
  /** The credential the agent accepted. */
  credentialId?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const ipv4Number = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);

type Auth = { credentialId: string; header: string } | undefined;

/** One command to the DHCPv4 server through the agent; a failure is in the answer. */
export async function keaCommand(options: KeaOptions, auth: Auth, command: string, args: Record<string, unknown>): Promise<KeaAnswer | KeaFailure> {
  const { host, port, timeoutMs, deadline } = options;
  const remaining = Math.min(timeoutMs, deadline - Date.now());
  if (remaining <= 0) return { code: 'HOST_TIMEOUT', message: `The per-host time-out ended before ${command} could be sent.` };
  const body = JSON.stringify({ command, service: ['dhcp4'], arguments: args });
  const where = `http://${net.isIPv6(host) ? `[${host}]` : host}:${port}/`;
  const answer = await boundedRequest({
    url: new URL(where), body, timeoutMs: remaining, maxOctets: MAX_ANSWER_OCTETS, agent: false,
    headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth.header } : {}) },
  });
  if (isBoundedFailure(answer)) {
    switch (answer.failure) {
      case 'TIMEOUT': return Date.now() >= deadline
        ? { code: 'HOST_TIMEOUT', message: `The per-host time-out ended during ${command}.` }
        : { code: 'CONNECTION_TIMEOUT', message: `${where} did not answer ${command} within ${remaining} ms.` };
      case 'TOO_LARGE': return { code: 'DHCP_MALFORMED_ANSWER', message: `${where} answered ${command} with more than ${MAX_ANSWER_OCTETS} octets.` };
      case 'INTERRUPTED': return { code: 'DHCP_READ_INCOMPLETE', message: `The answer of ${where} to ${command} stopped: ${answer.detail}.` };
      case 'NETWORK': return { code: networkErrorCode(answer.errno) ?? 'DHCP_READ_INCOMPLETE', message: `${command} to ${where} failed: ${answer.errno ?? answer.detail}.` };
    }
  }
  if (answer.status === 401 || answer.status === 403) return { code: 'DHCP_AUTH_FAILED', message: `${where} answered HTTP ${answer.status} to ${command}${auth ? '' : ' sent without a credential'}.` };
  if (answer.status !== 200) return { code: 'DHCP_API_ERROR', message: `${where} answered HTTP ${answer.status} to ${command}: not Kea's control agent, or it failed.` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    return { code: 'DHCP_MALFORMED_ANSWER', message: `${where} answered ${command} with something that is not JSON.` };
  }
  const first: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!isObject(first) || !Number.isInteger(first.result)) return { code: 'DHCP_MALFORMED_ANSWER', message: `${where} answered ${command} without a result: not Kea's control agent.` };
  const text = typeof first.text === 'string' ? first.text.slice(0, 300) : '';
  return { result: first.result as number, text, ...(first.arguments !== undefined ? { arguments: first.arguments } : {}) };
}

function basicAuth(credential: RevealedCredential): Auth {
  const username = String(credential.settings.username ?? '');
  const password = credential.secrets.password ?? '';
  return { credentialId: credential.id, header: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

/**
 * Every lease of the DHCPv4 server, in pages of `pageSize`, at most `maxLeases` (more is a partial
 * read). The first page is asked with each credential in turn until the agent accepts one (or
 * without one when none is offered).
 */
export async function readLeases(options: KeaOptions, credentials: RevealedCredential[], { pageSize, maxLeases }: { pageSize: number; maxLeases: number }): Promise<LeaseRead> {
  const leases: unknown[] = [];
  let pages = 0;
  const partial = (failure: KeaFailure, auth?: Auth): LeaseRead => ({ leases, pages, complete: false, failure, ...(auth ? { credentialId: auth.credentialId } : {}) });
  const auths: Auth[] = credentials.length ? credentials.map(basicAuth) : [undefined];
  let auth: Auth = undefined;
  let from = 'start';
  for (;;) {
    // One more than the limit leaves room to see that there are more.
    const limit = Math.min(pageSize, maxLeases + 1 - leases.length);
    let answer: KeaAnswer | KeaFailure | undefined;
    if (pages === 0) {
      const refused: string[] = [];
      for (const candidate of auths) {
        answer = await keaCommand(options, candidate, 'lease4-get-page', { from, limit });
        if (!('code' in answer) || answer.code !== 'DHCP_AUTH_FAILED') {
          auth = candidate;
          break;
        }
        refused.push(answer.message);
      }
      if (answer && 'code' in answer && answer.code === 'DHCP_AUTH_FAILED') {
        return partial({ code: 'DHCP_AUTH_FAILED', message: `${credentials.length ? `Every HTTP_BASIC credential offered was refused: ${refused.join(' ')}` : answer.message} No leases of this scan are loaded.`.slice(0, 1000) });
      }
    } else {
      answer = await keaCommand(options, auth, 'lease4-get-page', { from, limit });
    }
    if (answer === undefined) throw new Error('no answer');
    if ('code' in answer) {
      // A failure after the first page leaves a read in part.
      const code = pages === 0 || answer.code === 'HOST_TIMEOUT' || answer.code === 'DHCP_MALFORMED_ANSWER' ? answer.code : 'DHCP_READ_INCOMPLETE';
      return partial({ code, message: `${answer.message}${pages ? ` ${leases.length} leases had been read in ${pages} pages.` : ''}` }, auth);
    }
    pages++;
    if (answer.result === RESULT_EMPTY) return { leases, pages, complete: true, ...(auth ? { credentialId: auth.credentialId } : {}) };
    if (answer.result === RESULT_UNSUPPORTED) return partial({ code: 'DHCP_COMMAND_UNSUPPORTED', message: `The DHCPv4 server does not support lease4-get-page: ${answer.text}` }, auth);
    if (answer.result !== RESULT_SUCCESS) return partial({ code: pages === 1 ? 'DHCP_API_ERROR' : 'DHCP_READ_INCOMPLETE', message: `The DHCPv4 server answered lease4-get-page with result ${answer.result}: ${answer.text}` }, auth);
    const page = isObject(answer.arguments) ? answer.arguments.leases : undefined;
    if (!Array.isArray(page) || page.length > limit) return partial({ code: 'DHCP_MALFORMED_ANSWER', message: `The answer to lease4-get-page has ${Array.isArray(page) ? `${page.length} leases, more than the ${limit} asked for` : 'no list of leases'}.` }, auth);
    leases.push(...page);
    if (leases.length > maxLeases) {
      leases.length = maxLeases;
      return partial({ code: 'DHCP_LEASES_TRUNCATED', message: `The server holds more leases than the ${maxLeases} of settings.DHCP.maxLeases.` }, auth);
    }
    if (page.length < limit) return { leases, pages, complete: true, ...(auth ? { credentialId: auth.credentialId } : {}) };
    // The next page starts after this one's last address, which must come after the last start.
    const last: unknown = isObject(page.at(-1)) ? (page.at(-1) as Record<string, unknown>)['ip-address'] : undefined;
    if (typeof last !== 'string' || !net.isIPv4(last) || (from !== 'start' && ipv4Number(last) <= ipv4Number(from))) {
      return partial({ code: 'DHCP_MALFORMED_ANSWER', message: `A page of lease4-get-page does not end with an address after ${from}: the pages do not advance.` }, auth);
    }
    from = last;
  }
}
