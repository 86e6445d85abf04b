// A test double of Azure Resource Manager and of Microsoft Entra ID's token endpoint (no server of
// either runs here), over HTTPS with a certificate of its own (the SDK sends bearer tokens over TLS
// only), speaking their wire protocols:
// - Entra ID: the OpenID Connect metadata document (/{tenant}/v2.0/.well-known/openid-configuration)
//   and the client credentials grant (POST /{tenant}/oauth2/v2.0/token, a form with client_id,
//   client_secret, scope and grant_type), answered as the Microsoft identity platform documents it
//   (the access token a JWT for the scope's resource, which azurite's blob service accepts)
//   (learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow: the token
//   response, and the error response with AADSTS7000215 for a wrong secret, AADSTS700016 for an
//   unknown client).
// - ARM: GET of list paths (api-version in the query), the bearer token checked, answers
//   { value, nextLink } in pages of its own size with nextLink to the next page (as every pageable
//   ARM list does; Subscriptions_ListLocations, which ARM does not page, in one), errors as ARM's
//   { error: { code, message } } (learn.microsoft.com/azure/azure-resource-manager/troubleshooting/
//   common-deployment-errors), 429 with Retry-After when told to throttle (learn.microsoft.com/azure/
//   azure-resource-manager/management/request-limits-and-throttling).
// The list items are the azure-rest-api-specs examples of test/fixtures/azure/ (each names its file):
// a test puts them, with documented ids substituted, at their list paths.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../../platform/project-root.js';
import { certificate } from '../kubernetes/kubernetes-double.js';

type Item = Record<string, unknown>;
const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'azure');

/** A fixture's published items, with documented ids replaced by others (`substitute`: each text and its replacement). */
export function exampleItems(name: string, substitute: [string, string][] = []): Item[] {
  const text = readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8');
  const items = (JSON.parse(text) as { items: Item[] }).items;
  return items.map((item) => JSON.parse(substitute.reduce((t, [from, to]) => t.split(from).join(to), JSON.stringify(item))) as Item);
}

export interface AzureDoubleOptions {
  /** Service principals: client id to its secret. */
  clients: Record<string, string>;
  /** Items per page at most. */
  pageSize?: number;
  /** The seconds a 429 asks to wait (Retry-After). */
  retryAfterSeconds?: number;
}

const ARM_ERROR = (code: string, message: string) => ({ error: { code, message } });

export class AzureDouble {
  url = '';
  certificate = '';
  /** Requests answered, by path in lower case without the query (the token endpoint's as POST token). */
  readonly requests = new Map<string, number>();
  private server?: https.Server;
  private readonly lists = new Map<string, Item[]>();
  private readonly tokens = new Set<string>();
  private readonly throttled = new Map<string, number>();
  private readonly failing = new Set<string>();

  constructor(private readonly options: AzureDoubleOptions) {}

  async start(): Promise<this> {
    const { key, cert } = certificate();
    this.certificate = cert;
    this.server = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.answer(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The items a list path answers (for example /subscriptions/{id}/providers/Microsoft.Compute/virtualMachines). */
  put(listPath: string, items: Item[]): void {
    this.lists.set(listPath.toLowerCase(), items);
  }

  /** The next `count` requests of the list path answer 429 with Retry-After. */
  throttle(listPath: string, count: number): void {
    this.throttled.set(listPath.toLowerCase(), count);
  }

  /** Every request under the path prefix (a subscription: /subscriptions/{id}) answers 500 until `fail` is called with false. */
  fail(prefix: string, failing = true): void {
    if (failing) this.failing.add(prefix.toLowerCase());
    else this.failing.delete(prefix.toLowerCase());
  }

  /** Requests answered, all paths together. */
  get total(): number {
    return [...this.requests.values()].reduce((a, b) => a + b, 0);
  }

  private count(name: string): void {
    this.requests.set(name, (this.requests.get(name) ?? 0) + 1);
  }

  private send(res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ms-request-id': randomUUID(), ...headers }).end(JSON.stringify(body));
  }

  private answer(req: import('node:http').IncomingMessage, body: string, res: import('node:http').ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const pathname = url.pathname.replace(/\/+$/, '').toLowerCase();
    const oidc = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(pathname);
    if (oidc) {
      this.count('openid-configuration');
      const tenant = oidc[1] as string;
      // The metadata fields MSAL reads, as Entra ID publishes them for a tenant.
      return this.send(res, 200, {
        token_endpoint: `${this.url}/${tenant}/oauth2/v2.0/token`,
        token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
        jwks_uri: `${this.url}/${tenant}/discovery/v2.0/keys`,
        response_modes_supported: ['query', 'fragment', 'form_post'],
        subject_types_supported: ['pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
        issuer: `${this.url}/${tenant}/v2.0`,
        request_uri_parameter_supported: false,
        userinfo_endpoint: 'https://graph.microsoft.com/oidc/userinfo',
        authorization_endpoint: `${this.url}/${tenant}/oauth2/v2.0/authorize`,
        device_authorization_endpoint: `${this.url}/${tenant}/oauth2/v2.0/devicecode`,
        http_logout_supported: true,
        frontchannel_logout_supported: true,
        end_session_endpoint: `${this.url}/${tenant}/oauth2/v2.0/logout`,
        claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'nonce', 'tid'],
        tenant_region_scope: 'NA',
        cloud_instance_name: 'microsoftonline.com',
        cloud_graph_host_name: 'graph.windows.net',
        msgraph_host: 'graph.microsoft.com',
      });
    }
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(pathname);
    if (req.method === 'POST' && token) return this.token(token[1] as string, new URLSearchParams(body), res);
    this.count(pathname);
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!bearer || !this.tokens.has(bearer)) {
      return this.send(res, 401, ARM_ERROR('InvalidAuthenticationToken', 'The access token is invalid.'), { 'www-authenticate': `Bearer authorization_uri="${this.url}/common/oauth2/authorize", error="invalid_token"` });
    }
    const throttles = this.throttled.get(pathname) ?? 0;
    if (throttles > 0) {
      this.throttled.set(pathname, throttles - 1);
      return this.send(res, 429, ARM_ERROR('TooManyRequests', 'The request is being throttled.'), { 'retry-after': String(this.options.retryAfterSeconds ?? 1) });
    }
    if ([...this.failing].some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`))) {
      return this.send(res, 500, ARM_ERROR('InternalServerError', 'Encountered internal server error. Please try again.'));
    }
    const items = this.lists.get(pathname);
    if (!items) return this.send(res, 404, ARM_ERROR('ResourceNotFound', `The resource '${pathname}' was not found.`));
    // ARM does not page Subscriptions_ListLocations (its swagger names no nextLink).
    const size = pathname.endsWith('/locations') ? items.length : (this.options.pageSize ?? 1000);
    const from = Number(url.searchParams.get('$skiptoken') ?? 0) || 0;
    const page = items.slice(from, from + size);
    const next = from + size < items.length ? new URL(url.pathname, this.url) : undefined;
    if (next) {
      next.searchParams.set('api-version', url.searchParams.get('api-version') ?? '');
      next.searchParams.set('$skiptoken', String(from + size));
    }
    this.send(res, 200, { value: page, ...(next ? { nextLink: next.toString() } : {}) });
  }

  /**
   * The client credentials grant: a token for a known client with its secret, else Entra ID's error.
   * The token is a JWT with the claims a resource checks (audience: the scope's resource; issuer:
   * the tenant's v1 issuer, as Entra ID gives tokens for Azure Storage; lifetime), as azurite
   * checks them; its signature is random (azurite does not verify one, and the double knows its tokens).
   */
  private token(tenant: string, form: URLSearchParams, res: import('node:http').ServerResponse): void {
    this.count('token');
    const clientId = form.get('client_id') ?? '';
    const secret = this.options.clients[clientId];
    const error = (code: number, description: string) =>
      this.send(res, 401, { error: 'invalid_client', error_description: `${description}\r\nTrace ID: ${randomUUID()}\r\nCorrelation ID: ${randomUUID()}\r\nTimestamp: ${new Date().toISOString().replace('T', ' ').slice(0, 19)}Z`, error_codes: [code], timestamp: new Date().toISOString(), trace_id: randomUUID(), correlation_id: randomUUID() });
    if (form.get('grant_type') !== 'client_credentials') return this.send(res, 400, { error: 'unsupported_grant_type', error_description: 'AADSTS70003: The app requested an unsupported grant type.' });
    if (secret === undefined) return error(700016, `AADSTS700016: Application with identifier '${clientId}' was not found in the directory.`);
    if (form.get('client_secret') !== secret) return error(7000215, "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app.");
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { aud: (form.get('scope') ?? '').replace(/\/\.default$/, ''), iss: `https://sts.windows.net/${tenant}/`, iat: now, nbf: now, exp: now + 3599, appid: clientId, tid: tenant, ver: '1.0' };
    const token = `${part({ typ: 'JWT', alg: 'RS256', kid: 'double' })}.${part(claims)}.${randomBytes(64).toString('base64url')}`;
    this.tokens.add(token);
    this.send(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
  }
}
