// POSTs JSON to a service outside ours (a chat-completions endpoint, a team-chat webhook). Their
// addresses and keys are secrets, and the errors of fetch can carry them: a failure is reported
// only as an OutboundHttpError whose reason names what happened, never where.

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

/** The body of a 2xx answer, read within the same time-out as the request. */
export async function postJson(url: string, body: unknown, { timeoutMs, headers = {} }: OutboundRequest): Promise<string> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      // A redirect would be a configuration mistake; following it could send the key elsewhere.
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new OutboundHttpError(`answered HTTP ${response.status}`);
    return text;
  } catch (error) {
    if (error instanceof OutboundHttpError) throw error;
    // By name: the DOMException of the time-out may come from another realm than this Error.
    if ((error as { name?: unknown } | null)?.name === 'TimeoutError') throw new OutboundHttpError(`did not answer within ${timeoutMs} ms`);
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    throw new OutboundHttpError(typeof code === 'string' && /^[A-Z_]+$/.test(code) ? `could not be reached (${code})` : 'could not be reached');
  }
}
