// A minimal client of the Kubernetes API (JSON over HTTPS, a bearer token) on boundedRequest: the
// server certificate checked (against the credential's CA, or its pinned fingerprint, or pinned at
// first contact) before the token is sent; every list read in pages with limit and continue, an
// expired continue token (410 Gone) answered by reading the list again from its start, a bounded
// number of times; every answer bounded in time and octets. The official SDK
// (@kubernetes/client-node) is not used: docs/discovery.md says why.
import https from 'node:https';
import net from 'node:net';
import type tls from 'node:tls';
import { boundedRequest, isBoundedFailure } from '../../../../platform/http/bounded-request.js';
import type { Pins } from '../../host-state-store.js';
import { networkErrorCode } from '../../shared-scan-errors.js';
import { HandshakeFailure, presentedCertificate } from '../tls-peer.js';
import type { KubernetesErrorCode } from './kubernetes-errors.js';

export interface KubernetesApiOptions {
  host: string;
  port: number;
  /** The API's path prefix ('' for the API server itself, a proxy's path otherwise). */
  prefix: string;
  token: string;
  /** PEM certificates of the cluster's CA: the server's must chain to them and name the host. */
  caCertificate?: string;
  /** The SHA-256 fingerprint the server's certificate must have. */
  certificateSha256?: string;
  connectTimeoutMs: number;
  /** Epoch ms: no request is sent after it. */
  deadline: number;
  pageSize: number;
  /** Objects read at most per list: a longer list is cut (truncated). */
  maxObjects: number;
}

/** The octets one answer may bring (a page of 500 pods is a few MB). */
const MAX_ANSWER_OCTETS = 64 * 1024 * 1024;
/** Times a list is read again from its start after its continue token expired. */
const MAX_RESTARTS = 3;

export class KubernetesFailure extends Error {
  constructor(readonly code: KubernetesErrorCode, message: string) {
    super(message);
  }
}

export type KubeObject = Record<string, unknown>;

/** A list as read: its items, and whether it was cut at maxObjects. */
export interface KubeList {
  items: KubeObject[];
  truncated: boolean;
}

/** A fingerprint as Node writes it (AB:CD:...), from any spelling (colons or not, any case). */
export const normaliseFingerprint = (value: string) => (value.replace(/[^0-9a-fA-F]/g, '').toUpperCase().match(/../g) ?? []).join(':');

export class KubernetesApi {
  private readonly agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  private fingerprint?: string;
  /** Requests sent. */
  calls = 0;

  constructor(private readonly options: KubernetesApiOptions, private readonly pins: Pins) {}

  /** Checks the server certificate (the CA or fingerprint given, and the pin) before anything is sent. */
  async verify(): Promise<void> {
    const { host, port, caCertificate, certificateSha256, connectTimeoutMs } = this.options;
    const seen = await presentedCertificate(host, port, connectTimeoutMs, caCertificate).catch((error: unknown) => {
      throw error instanceof HandshakeFailure ? new KubernetesFailure(error.code ?? 'KUBERNETES_API_ERROR', error.message) : error;
    });
    const { fingerprint, subject } = seen;
    if (caCertificate && !seen.authorized) {
      throw new KubernetesFailure('KUBERNETES_CERTIFICATE_UNTRUSTED', `The certificate of ${host}:${port} (${fingerprint}) is not trusted by the credential's caCertificate: ${seen.reason ?? 'unknown reason'}. The token was not sent.`);
    }
    if (certificateSha256 && normaliseFingerprint(certificateSha256) !== fingerprint) {
      throw new KubernetesFailure('KUBERNETES_CERTIFICATE_UNTRUSTED', `The certificate of ${host}:${port} is ${fingerprint}, not the credential's certificateSha256. The token was not sent.`);
    }
    const pinned = await this.pins.pinOrCompare('TLS_CERTIFICATE', host, port, { fingerprint, detail: subject });
    if (pinned) {
      throw new KubernetesFailure('KUBERNETES_CERTIFICATE_CHANGED', `The certificate of ${host}:${port} is now ${fingerprint}, not the one pinned at first contact (${pinned.fingerprint}); the token was not sent. If the API server's certificate was renewed, accept the new one (POST /api/v1/discovery/pins/accept).`);
    }
    this.fingerprint = fingerprint;
  }

  /** One GET; an answer other than 200 becomes a KubernetesFailure (410 Gone as 'expired'). */
  async get(path: string, query: Record<string, string | number> = {}): Promise<KubeObject | 'expired'> {
    const { host, port, prefix, token, deadline } = this.options;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new KubernetesFailure('HOST_TIMEOUT', `The per-host time-out ended before GET ${path} could be sent.`);
    const url = new URL(`https://${net.isIPv6(host) ? `[${host}]` : host}:${port}${prefix}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
    this.calls++;
    const answer = await boundedRequest({
      url, method: 'GET', timeoutMs: remaining, maxOctets: MAX_ANSWER_OCTETS, agent: this.agent,
      headers: { Accept: 'application/json', Authorization: `Bearer ${token}` },
      inspect: (response) => {
        if ((response.socket as tls.TLSSocket).getPeerCertificate().fingerprint256 !== this.fingerprint) {
          throw new KubernetesFailure('KUBERNETES_CERTIFICATE_CHANGED', `The certificate of ${host}:${port} changed during the read; it was stopped.`);
        }
      },
    });
    if (isBoundedFailure(answer)) {
      switch (answer.failure) {
        case 'TIMEOUT': throw new KubernetesFailure('HOST_TIMEOUT', `GET ${path} did not answer within the per-host time-out.`);
        case 'TOO_LARGE': throw new KubernetesFailure('KUBERNETES_API_ERROR', `${host}:${port} answered GET ${path} with more than ${MAX_ANSWER_OCTETS} octets; lower the target's KUBERNETES pageSize.`);
        case 'INTERRUPTED': throw new KubernetesFailure('KUBERNETES_API_ERROR', `The answer of ${host}:${port} to GET ${path} stopped: ${answer.detail}.`);
        case 'NETWORK': {
          const code = networkErrorCode(answer.errno);
          throw new KubernetesFailure(code ?? 'KUBERNETES_API_ERROR', `GET ${path} to ${host}:${port} failed: ${answer.errno ?? answer.detail}.`);
        }
      }
    }
    let body: KubeObject | undefined;
    try {
      const parsed: unknown = JSON.parse(answer.text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && typeof (parsed as KubeObject).kind === 'string') body = parsed as KubeObject;
    } catch {
      // Not JSON: not an API server.
    }
    if (!body) throw new KubernetesFailure('NOT_KUBERNETES', `https://${host}:${port}${prefix}${path} answered HTTP ${answer.status} without a Kubernetes API object: not an API server.`);
    if (answer.status === 200) return body;
    // An error is a Status object (kind Status): its reason and message say what was refused.
    const message = typeof body.message === 'string' ? body.message.slice(0, 300) : `HTTP ${answer.status}`;
    if (answer.status === 410) return 'expired';
    if (answer.status === 401) throw new KubernetesFailure('KUBERNETES_UNAUTHORIZED', `GET ${path}: 401 ${message}`);
    if (answer.status === 403) throw new KubernetesFailure('KUBERNETES_FORBIDDEN', `GET ${path} (verb ${query.limit === undefined ? 'get' : 'list'}): 403 ${message}`);
    throw new KubernetesFailure('KUBERNETES_API_ERROR', `GET ${path}: ${answer.status} ${typeof body.reason === 'string' ? body.reason : ''} ${message}`.replace(/\s+/g, ' '));
  }

  /** Every object of a list, in pages; read again from its start (at most MAX_RESTARTS times) when its continue token expired. */
  async list(path: string): Promise<KubeList> {
    const { pageSize, maxObjects } = this.options;
    for (let restart = 0; restart <= MAX_RESTARTS; restart++) {
      const items: KubeObject[] = [];
      let token: string | undefined;
      let expired = false;
      do {
        const page = await this.get(path, { limit: Math.min(pageSize, maxObjects - items.length + 1), ...(token ? { continue: token } : {}) });
        if (page === 'expired') {
          expired = true;
          break;
        }
        items.push(...(Array.isArray(page.items) ? (page.items as KubeObject[]) : []));
        const meta = page.metadata as KubeObject | undefined;
        token = typeof meta?.continue === 'string' && meta.continue ? meta.continue : undefined;
        if (items.length > maxObjects) return { items: items.slice(0, maxObjects), truncated: true };
      } while (token);
      if (!expired) return { items, truncated: false };
    }
    throw new KubernetesFailure('KUBERNETES_API_ERROR', `GET ${path}: the list's continue token expired (410 Gone) ${MAX_RESTARTS + 1} times in a row; the list was not read.`);
  }

  close(): void {
    this.agent.destroy();
  }
}
