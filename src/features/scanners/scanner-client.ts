// How a remote scanner speaks to the service: the scanner operations of api.yaml over HTTP(S),
// with its token. A refused token (401, 403) is final: ScannerRefusedError. No answer, a 5xx or a
// 429 may pass: ServiceUnavailableError, worth another try. Any other refusal is the request's
// own (ScannerRequestError): trying it again changes nothing.
import type { Pin, PinKind, ReportState, ScannerChunk, ScannerReport } from '../discovery/remote-chunk-service.js';
import { setsAsLists } from '../discovery/observation-bundle.js';

export class ScannerRefusedError extends Error {
  override name = 'ScannerRefusedError';
}

export class ServiceUnavailableError extends Error {
  override name = 'ServiceUnavailableError';
}

export class ScannerRequestError extends Error {
  override name = 'ScannerRequestError';
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

// A request but the long poll gets this long; the long poll, its wait and this.
const REQUEST_TIMEOUT_MS = 60_000;

export class ScannerClient {
  constructor(
    /** The service's URL with its context path, no trailing slash. */
    private readonly url: string,
    private readonly token: string,
    private readonly version: string,
  ) {}

  /** The next chunk of the scanner's group, or undefined when none came within `waitSeconds`. */
  async claim(waitSeconds: number, signal?: AbortSignal): Promise<ScannerChunk | undefined> {
    const answer = await this.post('/api/v1/scanner/chunks/claim', { version: this.version, waitSeconds }, (waitSeconds * 1000) + REQUEST_TIMEOUT_MS, signal);
    return answer === undefined ? undefined : (answer as { data: ScannerChunk }).data;
  }

  async report(chunkId: string, report: ScannerReport): Promise<ReportState> {
    return ((await this.post(`/api/v1/scanner/chunks/${chunkId}/reports`, report)) as { data: { state: ReportState } }).data.state;
  }

  async pin(chunkId: string, attempt: number, kind: PinKind, address: string, port: number, seen: Pin): Promise<Pin | undefined> {
    const answer = (await this.post(`/api/v1/scanner/chunks/${chunkId}/pins`, { attempt, kind, address, port, fingerprint: seen.fingerprint, detail: seen.detail })) as { data: { pinned: Pin | null } };
    return answer.data.pinned ?? undefined;
  }

  async countHost(chunkId: string, attempt: number, method: string): Promise<number> {
    return ((await this.post(`/api/v1/scanner/chunks/${chunkId}/host-counts`, { attempt, method })) as { data: { before: number } }).data.before;
  }

  /** The answer's JSON, or undefined for a 204. */
  private async post(path: string, body: unknown, timeoutMs = REQUEST_TIMEOUT_MS, signal?: AbortSignal): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body, setsAsLists),
        // The token goes to the configured service only.
        redirect: 'error',
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      throw new ServiceUnavailableError(`POST ${path}: no answer (${cause})`);
    }
    const text = await res.text().catch(() => '');
    if (res.status === 204) return undefined;
    if (res.ok) return JSON.parse(text) as unknown;
    const detail = problemDetail(text);
    if (res.status === 401 || res.status === 403) throw new ScannerRefusedError(`POST ${path}: ${res.status} ${detail}`);
    if (res.status >= 500 || res.status === 429) throw new ServiceUnavailableError(`POST ${path}: ${res.status} ${detail}`);
    throw new ScannerRequestError(`POST ${path}: ${res.status} ${detail}`, res.status);
  }
}

/** What a problem+json answer says (its detail and first field errors), else the start of the text. */
function problemDetail(text: string): string {
  try {
    const problem = JSON.parse(text) as { title?: string; detail?: string; errors?: { path?: string; message?: string }[] };
    const fields = (problem.errors ?? []).slice(0, 3).map((e) => `${e.path}: ${e.message}`);
    return [problem.detail ?? problem.title ?? '', ...fields].filter(Boolean).join('; ');
  } catch {
    return text.slice(0, 200);
  }
}
