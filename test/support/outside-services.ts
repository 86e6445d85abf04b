// Local stand-ins for the services outside ours, speaking their real wire protocols over HTTP on a
// free port: an OpenAI-compatible chat-completions endpoint and a team-chat incoming webhook. Each
// records what it received and answers as the test tells it to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

type Answer = (req: ReceivedRequest, res: http.ServerResponse) => void;

export interface RecordingServer {
  /** http://127.0.0.1:port */
  url: string;
  received: ReceivedRequest[];
  /** How the next requests are answered. */
  answer: Answer;
  close(): Promise<void>;
}

async function recordingServer(answer: Answer): Promise<RecordingServer> {
  const received: ReceivedRequest[] = [];
  const state = { answer };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined };
      received.push(request);
      state.answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    get answer() {
      return state.answer;
    },
    set answer(a: Answer) {
      state.answer = a;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** A chat completion whose assistant message is `content`, as OpenAI and its imitators send it. */
export function completion(content: string): Answer {
  return (req, res) =>
    json(res, 200, {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: req.body?.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
    });
}

export const httpStatus = (status: number, body: unknown = { error: { message: 'upstream failure' } }): Answer => (_req, res) => json(res, status, body);

/** Never answers (until the server closes). */
export const silence: Answer = () => undefined;

export function chatCompletionsServer(answer: Answer = httpStatus(500)): Promise<RecordingServer> {
  return recordingServer(answer);
}

/** A Slack-style or Teams webhook: 200 "ok" unless told otherwise. */
export function webhookReceiver(): Promise<RecordingServer> {
  return recordingServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
}

/** A port on which nothing listens (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
