// One HTTP(S) request to a peer we do not control (a device's API, a webhook, a model endpoint),
// bounded in time and in octets: one clock covers the connect and the whole answer (a peer that
// trickles its answer meets it too), and an answer larger than the cap is cut off, not buffered.
// Never rejects for what the peer or the network does: the failure is in the result, for each caller
// to word in its own terms (an error code of a connector, a reason that hides a secret address).
import http from 'node:http';
import https from 'node:https';

export interface BoundedRequest {
  url: URL;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** For the connect and the whole answer. */
  timeoutMs: number;
  /** The octets the answer's body may bring. */
  maxOctets: number;
  agent?: http.Agent | false;
  /** TLS options of https requests (a trusted authority, a pinned peer checked in `inspect`). */
  rejectUnauthorized?: boolean;
  /** Looks at the response before its body is read; what it throws ends the request and rejects it. */
  inspect?: (response: http.IncomingMessage) => void;
}

export interface BoundedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export type BoundedFailure =
  | { failure: 'TIMEOUT' }
  | { failure: 'TOO_LARGE' }
  /** The connection failed before an answer (`errno`: ECONNREFUSED, EHOSTUNREACH, ...). */
  | { failure: 'NETWORK'; errno?: string; detail: string }
  /** The answer stopped before its end. */
  | { failure: 'INTERRUPTED'; detail: string };

export const isBoundedFailure = (result: BoundedAnswer | BoundedFailure): result is BoundedFailure => 'failure' in result;

const firstLine = (error: Error) => (error.message.split('\n')[0] ?? '').slice(0, 200);

export function boundedRequest(options: BoundedRequest): Promise<BoundedAnswer | BoundedFailure> {
  const { url, method = 'POST', headers = {}, body, timeoutMs, maxOctets, agent, rejectUnauthorized, inspect } = options;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    // A whole answer leaves the socket to its agent (kept alive where the agent keeps sockets).
    const end = (whole = false) => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      if (!whole) request.destroy();
      return true;
    };
    const settle = (result: BoundedAnswer | BoundedFailure) => {
      if (end('text' in result)) resolve(result);
    };
    const request = transport.request(url, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) },
      ...(agent !== undefined ? { agent } : {}),
      ...(rejectUnauthorized !== undefined ? { rejectUnauthorized } : {}),
    }, (response) => {
      try {
        inspect?.(response);
      } catch (error) {
        if (end()) reject(error);
        return;
      }
      const declared = Number(response.headers['content-length']);
      if (declared > maxOctets) {
        settle({ failure: 'TOO_LARGE' });
        return;
      }
      const chunks: Buffer[] = [];
      let octets = 0;
      response.on('data', (chunk: Buffer) => {
        octets += chunk.length;
        if (octets > maxOctets) settle({ failure: 'TOO_LARGE' });
        else chunks.push(chunk);
      });
      response.on('end', () => settle({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error) => settle({ failure: 'INTERRUPTED', detail: firstLine(error) }));
      // After 'end' this changes nothing; before it, the peer closed the connection mid-answer.
      response.on('close', () => settle({ failure: 'INTERRUPTED', detail: 'the connection closed' }));
    });
    const timer = setTimeout(() => settle({ failure: 'TIMEOUT' }), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => settle({ failure: 'NETWORK', ...(error.code ? { errno: error.code } : {}), detail: firstLine(error) }));
    request.end(body);
  });
}
