// A vSphere Web Services (vim25 SOAP) session: the server certificate checked (against the trusted
// authorities unless the target says otherwise) and pinned at first contact, a changed one refused;
// a login with the first credential the server accepts; the PropertyCollector read in pages
// (RetrievePropertiesEx, then ContinueRetrievePropertiesEx while the server hands a token).
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { XMLParser } from 'fast-xml-parser';
import { boundedRequest, isBoundedFailure } from '../../../../platform/http/bounded-request.js';
import type { Pins } from '../../host-state-store.js';
import { networkErrorCode } from '../../shared-scan-errors.js';
import { HandshakeFailure, presentedCertificate } from '../tls-peer.js';
import type { VcenterErrorCode } from './vcenter-errors.js';

export interface Vim25Options {
  host: string;
  port: number;
  path: string;
  /** Check the certificate against the trusted authorities (and the host name). */
  verifyCertificate: boolean;
  /** PEM certificates trusted besides the system's. */
  caCertificate?: string;
  connectTimeoutMs: number;
  /** Epoch ms: no request is sent after it. */
  deadline: number;
}


/** The octets one answer may bring (a page of PropertyCollector objects is a few MB). */
const MAX_ANSWER_OCTETS = 64 * 1024 * 1024;

export class Vim25Failure extends Error {
  constructor(readonly code: VcenterErrorCode, message: string) {
    super(message);
  }
}

export interface ManagedObjectReference {
  type: string;
  value: string;
}

/** One object of a PropertyCollector page: its reference, its properties by path (as parsed XML), and the paths the server could not read. */
export interface ObjectContent {
  obj: ManagedObjectReference;
  props: Map<string, unknown>;
  missing: string[];
}

// Elements that may repeat: always arrays, so that one element and several read alike.
const ARRAY_TAGS = new Set(['objects', 'propSet', 'ManagedObjectReference', 'GuestNicInfo', 'ipAddress', 'HostVirtualSwitch', 'otherIdentifyingInfo', 'missingSet', 'string']);
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, isArray: (name) => ARRAY_TAGS.has(name) });

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&${({ '<': 'lt', '>': 'gt', '&': 'amp', "'": 'apos', '"': 'quot' } as Record<string, string>)[c]};`);
export const moRef = (tag: string, ref: ManagedObjectReference) => `<${tag} type="${escapeXml(ref.type)}">${escapeXml(ref.value)}</${tag}>`;
export const element = (tag: string, value: string | number | boolean) => `<${tag}>${escapeXml(String(value))}</${tag}>`;

/** The text of a parsed element (a string, or an object with attributes and #text). */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && '#text' in value) return String((value as Record<string, unknown>)['#text']);
  return undefined;
}

export function asRef(value: unknown): ManagedObjectReference | undefined {
  const type = value && typeof value === 'object' ? (value as Record<string, unknown>)['@type'] : undefined;
  const id = text(value);
  return typeof type === 'string' && id ? { type, value: id } : undefined;
}

/** The child of a parsed element whose name ends with `:name` or is `name` (SOAP prefixes vary). */
function child(node: unknown, name: string): unknown {
  if (!node || typeof node !== 'object') return undefined;
  const key = Object.keys(node).find((k) => k === name || k.endsWith(`:${name}`));
  return key ? (node as Record<string, unknown>)[key] : undefined;
}

export class Vim25Session {
  private readonly agent: https.Agent;
  private cookie?: string;
  private fingerprint?: string;
  /** SOAP calls made, and PropertyCollector pages read. */
  calls = 0;
  pages = 0;

  constructor(private readonly options: Vim25Options, private readonly pins: Pins) {
    // The certificate was checked by `verify`; every response must come with the same one.
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  }

  /** Checks the server certificate (trust, host name, pin) before anything is sent. */
  async verify(): Promise<void> {
    const { host, port, verifyCertificate, caCertificate, connectTimeoutMs } = this.options;
    const seen = await presentedCertificate(host, port, connectTimeoutMs, caCertificate ? [...tls.rootCertificates, caCertificate] : undefined).catch((error: unknown) => {
      throw error instanceof HandshakeFailure ? new Vim25Failure(error.code ?? 'VCENTER_PROTOCOL_ERROR', error.message) : error;
    });
    const { fingerprint, subject } = seen;
    if (verifyCertificate && !seen.authorized) {
      throw new Vim25Failure('CERTIFICATE_UNTRUSTED', `The certificate of ${host}:${port} (${fingerprint}) is not trusted: ${seen.reason ?? 'unknown reason'}. Add its authority as the target's VCENTER caCertificate, or set verifyCertificate to false.`);
    }
    const pinned = await this.pins.pinOrCompare('TLS_CERTIFICATE', host, port, { fingerprint, detail: subject });
    if (pinned) {
      throw new Vim25Failure('CERTIFICATE_CHANGED', `The certificate of ${host}:${port} is now ${fingerprint}, not the one pinned at first contact (${pinned.fingerprint}); not logged in. If the server's certificate was replaced, accept the new one (POST /api/v1/discovery/pins/accept).`);
    }
    this.fingerprint = fingerprint;
  }

  /** One SOAP call; a fault becomes a Vim25Failure (InvalidLogin as VCENTER_AUTH_FAILED). */
  async call(method: string, body: string): Promise<Record<string, unknown>> {
    const { host, port, path, deadline } = this.options;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Vim25Failure('HOST_TIMEOUT', `The per-host time-out ended before ${method} could be sent.`);
    const envelope = `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><${method} xmlns="urn:vim25">${body}</${method}></soapenv:Body></soapenv:Envelope>`;
    this.calls++;
    const answer = await boundedRequest({
      url: new URL(`https://${net.isIPv6(host) ? `[${host}]` : host}:${port}${path}`),
      body: envelope, timeoutMs: remaining, maxOctets: MAX_ANSWER_OCTETS, agent: this.agent,
      headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: 'urn:vim25/6.5', ...(this.cookie ? { Cookie: this.cookie } : {}) },
      inspect: (response) => {
        if ((response.socket as tls.TLSSocket).getPeerCertificate().fingerprint256 !== this.fingerprint) {
          throw new Vim25Failure('CERTIFICATE_CHANGED', `The certificate of ${host}:${port} changed during the session; the read was stopped.`);
        }
        const cookie = response.headers['set-cookie']?.find((c) => c.startsWith('vmware_soap_session='));
        if (cookie) this.cookie = cookie.split(';')[0];
      },
    });
    if (isBoundedFailure(answer)) {
      switch (answer.failure) {
        case 'TIMEOUT': throw new Vim25Failure('HOST_TIMEOUT', `${method} did not answer within the per-host time-out.`);
        case 'TOO_LARGE': throw new Vim25Failure('VCENTER_PROTOCOL_ERROR', `${host}:${port} answered ${method} with more than ${MAX_ANSWER_OCTETS} octets.`);
        case 'INTERRUPTED': throw new Vim25Failure('VCENTER_PROTOCOL_ERROR', `The answer of ${host}:${port} to ${method} stopped: ${answer.detail}.`);
        case 'NETWORK': {
          const code = networkErrorCode(answer.errno);
          throw new Vim25Failure(code ?? 'VCENTER_PROTOCOL_ERROR', `${method} to ${host}:${port} failed: ${answer.errno ?? answer.detail}.`);
        }
      }
    }
    const { status, text: payload } = answer;
    const parsed = /^\s*<(\?xml|[A-Za-z]+:Envelope)/.test(payload) ? parser.parse(payload) : undefined;
    const soapBody = child(child(parsed, 'Envelope'), 'Body') as Record<string, unknown> | undefined;
    if (!soapBody) throw new Vim25Failure('NOT_A_VCENTER', `https://${host}:${port}${path} answered ${method} with HTTP ${status} and no SOAP envelope: not a vSphere API endpoint.`);
    const fault = child(soapBody, 'Fault') as Record<string, unknown> | undefined;
    if (fault) {
      const detail = Object.keys((fault.detail as Record<string, unknown> | undefined) ?? {}).join(',');
      const reason = String(text(fault.faultstring) ?? 'fault').slice(0, 300);
      if (/InvalidLogin/.test(detail)) throw new Vim25Failure('VCENTER_AUTH_FAILED', reason);
      throw new Vim25Failure('VCENTER_API_ERROR', `${method}: ${reason}${detail ? ` (${detail})` : ''}`);
    }
    return (child(soapBody, `${method}Response`) as Record<string, unknown> | undefined) ?? {};
  }

  /**
   * Every object of the given types below the root folder with the properties asked, read through
   * a ContainerView in pages of `pageSize`; `onPage` takes each page as it comes.
   */
  async retrieveAll(rootFolder: ManagedObjectReference, propertyCollector: ManagedObjectReference, viewManager: ManagedObjectReference, specs: Record<string, string[]>, pageSize: number, onPage: (objects: ObjectContent[]) => void): Promise<void> {
    const view = asRef((await this.call('CreateContainerView', `${moRef('_this', viewManager)}${moRef('container', rootFolder)}${Object.keys(specs).map((t) => element('type', t)).join('')}${element('recursive', true)}`)).returnval);
    if (!view) throw new Vim25Failure('VCENTER_API_ERROR', 'CreateContainerView returned no view.');
    try {
      const propSets = Object.entries(specs).map(([type, paths]) => `<propSet>${element('type', type)}${paths.map((p) => element('pathSet', p)).join('')}</propSet>`).join('');
      const objectSet = `<objectSet>${moRef('obj', view)}<skip>true</skip><selectSet xsi:type="TraversalSpec"><name>view</name><type>ContainerView</type><path>view</path><skip>false</skip></selectSet></objectSet>`;
      let result = (await this.call('RetrievePropertiesEx', `${moRef('_this', propertyCollector)}<specSet>${propSets}${objectSet}</specSet><options>${element('maxObjects', pageSize)}</options>`)).returnval as Record<string, unknown> | undefined;
      for (;;) {
        this.pages++;
        onPage(toObjects(result));
        const token = text(result?.token);
        if (!token) break;
        result = (await this.call('ContinueRetrievePropertiesEx', `${moRef('_this', propertyCollector)}${element('token', token)}`)).returnval as Record<string, unknown> | undefined;
      }
    } finally {
      await this.call('DestroyView', moRef('_this', view)).catch(() => undefined);
    }
  }

  async logout(sessionManager: ManagedObjectReference): Promise<void> {
    await this.call('Logout', moRef('_this', sessionManager)).catch(() => undefined);
    this.agent.destroy();
  }

  close(): void {
    this.agent.destroy();
  }
}

function toObjects(result: Record<string, unknown> | undefined): ObjectContent[] {
  const objects = (result?.objects as Record<string, unknown>[] | undefined) ?? [];
  return objects.flatMap((o) => {
    const obj = asRef(o.obj);
    if (!obj) return [];
    const props = new Map<string, unknown>();
    for (const p of (o.propSet as Record<string, unknown>[] | undefined) ?? []) props.set(String(text(p.name)), p.val);
    const missing = ((o.missingSet as Record<string, unknown>[] | undefined) ?? []).map((m) => String(text(m.path)));
    return [{ obj, props, missing }];
  });
}
