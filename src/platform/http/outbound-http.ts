// POSTs JSON to a service outside ours (a chat-completions endpoint, a team-chat webhook). Their
// addresses and keys are secrets, and the errors of the network can carry them: a failure is
// reported only as an OutboundHttpError whose reason names what happened, never where.
import { boundedRequest, isBoundedFailure } from './bounded-request.js';

export class OutboundHttpError extends Error {
  override name = 'OutboundHttpError';
  /** @param reason what happened, as a verb phrase ('answered HTTP 500'), safe to store, log and show */
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface OutboundRequest {
  timeoutMs: number;
  headers?: Record<string, string>;
}

/** What an answer may bring: a chat completion or a webhook's acknowledgement is far smaller. */
export const MAX_OUTBOUND_ANSWER_OCTETS = 4 * 1024 * 1024;

/** The body of a 2xx answer, read within the same time-out as the request. A redirect is not followed: it would be a configuration mistake, and following it could send the key elsewhere. */
export async function postJson(url: string, body: unknown, { timeoutMs, headers = {} }: OutboundRequest): Promise<string> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundHttpError('is not a valid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new OutboundHttpError('is not an http or https URL');
  const answer = await boundedRequest({
    url: target,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    timeoutMs,
    maxOctets: MAX_OUTBOUND_ANSWER_OCTETS,
    agent: false,
  });
  if (!isBoundedFailure(answer)) {
    if (answer.status < 200 || answer.status > 299) throw new OutboundHttpError(`answered HTTP ${answer.status}`);
    return answer.text;
  }
  switch (answer.failure) {
    case 'TIMEOUT': throw new OutboundHttpError(`did not answer within ${timeoutMs} ms`);
    case 'TOO_LARGE': throw new OutboundHttpError(`answered with more than ${MAX_OUTBOUND_ANSWER_OCTETS} octets`);
    case 'INTERRUPTED': throw new OutboundHttpError('stopped answering before the end');
    case 'NETWORK': throw new OutboundHttpError(answer.errno && /^[A-Z_]+$/.test(answer.errno) ? `could not be reached (${answer.errno})` : 'could not be reached');
  }
}
