// Requests that Node's HTTP parser refuses (a URL or headers past its limit, bytes that are not
// HTTP) never reach Express: Node answers them itself with an empty body. This answers them as
// every other error of the service is answered, in RFC 9457 problem+json.
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE } from './problem-handler.js';

const STATUS_BY_CODE: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const DETAILS: Record<number, string> = {
  431: 'The request line or its headers are larger than the service accepts.',
  413: 'The request is larger than the service accepts.',
  408: 'The request did not arrive in time.',
  400: 'The request is not valid HTTP.',
};

export function answerClientErrorsAsProblems(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node's own handler: nothing to answer on a reset connection or after an answer began.
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const status = STATUS_BY_CODE[error.code ?? ''] ?? 400;
    const title = STATUS_CODES[status] ?? 'Bad Request';
    const body = JSON.stringify({ type: `urn:problem-type:${title.toLowerCase().replace(/\s+/g, '-')}`, title, status, detail: DETAILS[status] });
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
