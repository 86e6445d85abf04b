// A test double of the AWS APIs that no server here implements (STS, EC2, RDS, ELBv2,
// CloudFormation), over HTTP, speaking their wire protocols: the Query protocol (a form-encoded
// POST with Action and Version; XML answers, errors as <ErrorResponse>) and EC2's dialect of it
// (errors as <Response><Errors>). Every request must carry a SigV4 Authorization header whose
// signature verifies with a known key: an unknown key id is answered InvalidClientTokenId (EC2:
// AuthFailure), a wrong secret SignatureDoesNotMatch, as AWS answers them. The service and region
// are those the request is signed for. The answers are the AWS API Reference examples in
// test/fixtures/aws/ (each names its page): a test puts their list items into regions, and the
// double serves them in pages of its own size with the API's pagination token. It can throttle
// (Throttling / RequestLimitExceeded) or fail (InternalError) chosen requests, and forwards
// /dynamodb/<region>/ to a DynamoDB server per region (dynalite, which has no regions of its own).
// The AWS discovery test and the aws benchmark (src/tools/bench/aws.ts) use it.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../../platform/project-root.js';

const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'aws');

/** A fixture's document, without the comment that names its source. */
export function fixture(name: string): string {
  return readFileSync(path.join(FIXTURES, name), 'utf8').replace(/^<!--[\s\S]*?-->\s*/, '');
}

/** The direct children named `tag` of the first element named `container`, as XML text (a small scanner: the fixtures are plain XML). */
export function childElements(xml: string, container: string, tag: string): string[] {
  const start = xml.indexOf(`<${container}>`);
  if (start < 0) return [];
  const items: string[] = [];
  const token = /<(\/?)([A-Za-z0-9:_.-]+)[^>]*?(\/?)>/g;
  token.lastIndex = start + container.length + 2;
  let depth = 0;
  let itemStart = -1;
  for (let m = token.exec(xml); m; m = token.exec(xml)) {
    const [whole, closing, name, selfClosing] = m;
    if (closing) {
      if (depth === 0 && name === container) break;
      depth--;
      if (depth === 0 && name === tag && itemStart >= 0) items.push(xml.slice(itemStart, m.index + whole.length));
    } else if (!selfClosing) {
      if (depth === 0 && name === tag) itemStart = m.index;
      depth++;
    } else if (depth === 0 && name === tag) {
      items.push(whole);
    }
  }
  return items;
}

/** How the double serves one list action of a fixture. */
interface ListAction {
  service: string;
  fixture: string;
  container: string;
  item: string;
  /** The request's page-size parameter, and the token's parameter and answer element (none: not paginated). */
  page?: { size: string; token: string; answer: string; inResult: boolean };
  /** The request parameter whose value selects the list (a target group's health, a stack's resources). */
  by?: string;
}

const EC2_PAGE = { size: 'MaxResults', token: 'NextToken', answer: 'nextToken', inResult: false };
const ACTIONS: Record<string, ListAction> = {
  DescribeRegions: { service: 'ec2', fixture: 'ec2-describe-regions.xml', container: 'regionInfo', item: 'item' },
  DescribeInstances: { service: 'ec2', fixture: 'ec2-describe-instances.xml', container: 'reservationSet', item: 'item', page: EC2_PAGE },
  DescribeVpcs: { service: 'ec2', fixture: 'ec2-describe-vpcs.xml', container: 'vpcSet', item: 'item', page: EC2_PAGE },
  DescribeSubnets: { service: 'ec2', fixture: 'ec2-describe-subnets.xml', container: 'subnetSet', item: 'item', page: EC2_PAGE },
  DescribeDBInstances: { service: 'rds', fixture: 'rds-describe-db-instances.xml', container: 'DBInstances', item: 'DBInstance', page: { size: 'MaxRecords', token: 'Marker', answer: 'Marker', inResult: true } },
  DescribeLoadBalancers: { service: 'elasticloadbalancing', fixture: 'elbv2-describe-load-balancers.xml', container: 'LoadBalancers', item: 'member', page: { size: 'PageSize', token: 'Marker', answer: 'NextMarker', inResult: true } },
  DescribeTargetGroups: { service: 'elasticloadbalancing', fixture: 'elbv2-describe-target-groups.xml', container: 'TargetGroups', item: 'member', page: { size: 'PageSize', token: 'Marker', answer: 'NextMarker', inResult: true } },
  DescribeTargetHealth: { service: 'elasticloadbalancing', fixture: 'elbv2-describe-target-health.xml', container: 'TargetHealthDescriptions', item: 'member', by: 'TargetGroupArn' },
  DescribeStacks: { service: 'cloudformation', fixture: 'cloudformation-describe-stacks.xml', container: 'Stacks', item: 'member', page: { size: '', token: 'NextToken', answer: 'NextToken', inResult: true } },
  ListStackResources: { service: 'cloudformation', fixture: 'cloudformation-list-stack-resources.xml', container: 'StackResourceSummaries', item: 'member', page: { size: '', token: 'NextToken', answer: 'NextToken', inResult: true }, by: 'StackName' },
};
export type ListActionName = keyof typeof ACTIONS;

/** The published list items of an action's example (optionally with documented ids substituted). */
export function exampleItems(action: ListActionName, substitute: [string, string][] = []): string[] {
  const spec = ACTIONS[action] as ListAction;
  return childElements(fixture(spec.fixture), spec.container, spec.item).map((item) => substitute.reduce((text, [from, to]) => text.split(from).join(to), item));
}

// Error answers as the AWS API Reference's "Common Errors" pages give them (Query: <ErrorResponse>; EC2: <Response><Errors>).
const queryError = (code: string, message: string, type = 'Sender') =>
  `<ErrorResponse xmlns="https://aws.amazon.com/doc/"><Error><Type>${type}</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
const ec2Error = (code: string, message: string) => `<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>${randomUUID()}</RequestID></Response>`;

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const encode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Whether a request's SigV4 signature verifies with `secret` (the algorithm of the AWS General Reference, "Signature Version 4 signing process"). */
function signatureMatches(req: http.IncomingMessage, body: Buffer, auth: { scope: string; signedHeaders: string[]; signature: string }, secret: string): boolean {
  const url = new URL(req.url ?? '/', 'http://double');
  const query = [...url.searchParams].map(([k, v]) => `${encode(k)}=${encode(v)}`).sort().join('&');
  const headers = auth.signedHeaders.map((h) => `${h}:${String(req.headers[h] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const payload = typeof req.headers['x-amz-content-sha256'] === 'string' ? req.headers['x-amz-content-sha256'] : sha256(body);
  const canonical = [req.method, url.pathname.split('/').map((p) => encode(decodeURIComponent(p))).join('/'), query, headers, auth.signedHeaders.join(';'), payload].join('\n');
  const [date, region, service] = auth.scope.split('/') as [string, string, string];
  const toSign = ['AWS4-HMAC-SHA256', String(req.headers['x-amz-date']), auth.scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex') === auth.signature;
}

export interface AwsDoubleOptions {
  /** Access key ids and their secrets; keys of assumed roles (AssumeRole's example) are added when it answers. */
  keys: Record<string, string>;
  /** Items per page at most (a request asking for fewer gets fewer). */
  pageSize?: number;
  /** A DynamoDB server per region, reached through /dynamodb/<region>/. */
  dynamodb?: Record<string, string>;
}

export class AwsDouble {
  url = '';
  /** Requests answered, by "service Action". */
  readonly requests = new Map<string, number>();
  private readonly server: http.Server;
  private readonly lists = new Map<string, string[]>();
  private readonly throttled = new Map<string, number>();
  private readonly failing = new Set<string>();
  private readonly keys: Record<string, string>;
  private readonly tokens = new Map<string, number>();

  constructor(private readonly options: AwsDoubleOptions) {
    this.keys = { ...options.keys };
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.answer(req, Buffer.concat(chunks), res).catch((error: unknown) => {
          res.writeHead(500, { 'content-type': 'text/xml' }).end(queryError('InternalError', String(error), 'Receiver'));
        });
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The list an action answers in a region (for DescribeTargetHealth and ListStackResources, of the one `by` names). */
  put(region: string, action: ListActionName, items: string[], by = ''): void {
    this.lists.set(`${region}|${action}|${by}`, items);
  }

  /** The next `count` requests of the action in the region answer throttling. */
  throttle(action: string, region: string, count: number): void {
    this.throttled.set(`${region}|${action}`, count);
  }

  /** Requests of the service in the region (every service: '*') answer InternalError until `fail` is called with false. */
  fail(service: string, region: string, failing = true): void {
    if (failing) this.failing.add(`${service}|${region}`);
    else this.failing.delete(`${service}|${region}`);
  }

  /** Requests answered, all actions together. */
  get total(): number {
    return [...this.requests.values()].reduce((a, b) => a + b, 0);
  }

  private async answer(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<void> {
    const dynamo = /^\/dynamodb\/([a-z0-9-]+)\/?$/.exec(req.url ?? '');
    const upstream = dynamo ? this.options.dynamodb?.[dynamo[1] as string] : undefined;
    if (upstream) return this.forward(req, body, res, upstream);
    const form = new URLSearchParams(body.toString('utf8'));
    const action = form.get('Action') ?? '';
    const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8}\/[^/]+\/[^/]+\/aws4_request), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(String(req.headers.authorization ?? ''));
    const service = auth?.[2]?.split('/')[2] ?? '';
    const region = auth?.[2]?.split('/')[1] ?? '';
    const send = (status: number, xml: string): void => {
      res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() }).end(xml);
    };
    const error = (status: number, code: string, message: string): void => send(status, service === 'ec2' ? ec2Error(code, message) : queryError(code, message));
    this.requests.set(`${service} ${action}`, (this.requests.get(`${service} ${action}`) ?? 0) + 1);
    if (!auth) return error(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
    const secret = this.keys[auth[1] as string];
    if (secret === undefined) return service === 'ec2' ? error(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials') : error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    if (!signatureMatches(req, body, { scope: auth[2] as string, signedHeaders: (auth[3] as string).split(';'), signature: auth[4] as string }, secret)) {
      return service === 'ec2'
        ? error(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials')
        : error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.');
    }
    const throttles = this.throttled.get(`${region}|${action}`) ?? 0;
    if (throttles > 0) {
      this.throttled.set(`${region}|${action}`, throttles - 1);
      return service === 'ec2' ? error(503, 'RequestLimitExceeded', 'Request limit exceeded.') : error(400, 'Throttling', 'Rate exceeded');
    }
    if (this.failing.has(`${service}|${region}`) || this.failing.has(`*|${region}`)) {
      return send(500, service === 'ec2' ? ec2Error('InternalError', 'An internal error has occurred.') : queryError('InternalFailure', 'The request processing has failed because of an unknown error, exception or failure.', 'Receiver'));
    }
    if (service === 'sts' && action === 'GetCallerIdentity') {
      return send(200, fixture(auth[1]?.startsWith('ASIA') ? 'sts-get-caller-identity-role.xml' : 'sts-get-caller-identity-user.xml'));
    }
    if (service === 'sts' && action === 'AssumeRole') {
      const answer = fixture('sts-assume-role.xml');
      const [id, key] = [/<AccessKeyId>([^<]+)</.exec(answer)?.[1], /<SecretAccessKey>([^<]+)</.exec(answer)?.[1]];
      if (id && key) this.keys[id] = key;
      return send(200, answer);
    }
    const spec = ACTIONS[action];
    if (!spec || spec.service !== service) return error(400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
    return send(200, this.page(spec, region, action, form));
  }

  /** One page of a list: the example document with its items replaced by the page's, and the token of the next page. */
  private page(spec: ListAction, region: string, action: string, form: URLSearchParams): string {
    const items = this.lists.get(`${region}|${action}|${spec.by ? (form.get(spec.by) ?? '') : ''}`) ?? [];
    const asked = spec.page?.size ? Number(form.get(spec.page.size)) || Infinity : Infinity;
    const size = spec.page ? Math.min(asked, this.options.pageSize ?? Infinity) : Infinity;
    const token = spec.page ? form.get(spec.page.token) : null;
    const from = token ? (this.tokens.get(token) ?? 0) : 0;
    const shown = items.slice(from, from + size);
    let next = '';
    if (spec.page && from + size < items.length) {
      const t = randomUUID();
      this.tokens.set(t, from + size);
      next = `<${spec.page.answer}>${t}</${spec.page.answer}>`;
    }
    const doc = fixture(spec.fixture);
    const open = doc.indexOf(`<${spec.container}>`);
    const close = doc.indexOf(`</${spec.container}>`, open);
    let out = `${doc.slice(0, open)}<${spec.container}>${shown.join('')}${doc.slice(close)}`;
    if (next) {
      const end = spec.page?.inResult ? out.indexOf(`</${action}Result>`) : out.lastIndexOf('</');
      out = `${out.slice(0, end)}${next}${out.slice(end)}`;
    }
    return out;
  }

  private async forward(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, upstream: string): Promise<void> {
    const answer = await fetch(`${upstream}/`, { method: req.method ?? 'POST', headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length').map(([k, v]) => [k, String(v)])), body: new Uint8Array(body) });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/x-amz-json-1.0' }).end(Buffer.from(await answer.arrayBuffer()));
  }
}
