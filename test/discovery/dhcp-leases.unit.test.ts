// The DHCP connector's handling of untrusted answers: each lease of Kea's lease4-get-page checked
// field by field (a bad lease costs only itself), the clients made of the leases (active ones make
// assets, expired ones are history only), and the paged read against HTTP servers that answer as
// a hostile or broken peer would (Kea itself never sends these: its lab test is dhcp-discovery).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RevealedCredential } from '../../src/features/credentials/credential-service.js';
import { validLeases } from '../../src/features/discovery/connectors/dhcp/dhcp.js';
import { clientFacts, cleanName, parseLease, type Lease } from '../../src/features/discovery/connectors/dhcp/dhcp-leases.js';
import { readLeases } from '../../src/features/discovery/connectors/dhcp/kea-api.js';

const NOW = 1_800_000_000;
const lease = (fields: Record<string, unknown>) => ({ 'ip-address': '10.0.0.5', 'hw-address': '02:00:00:00:00:05', hostname: 'printer-1', cltt: NOW - 600, 'valid-lft': 3600, state: 0, 'subnet-id': 1, ...fields });
const parsed = (fields: Record<string, unknown>) => (parseLease(lease(fields)) as { lease: Lease }).lease;

describe('a lease of lease4-get-page', () => {
  it('is read with its address, MAC (normalised), name (lower case, no final dot) and times', () => {
    expect(parseLease(lease({ 'hw-address': '02:AB:00:00:00:05', hostname: 'Printer-1.Lab.Test.' }))).toEqual({
      lease: { address: '10.0.0.5', mac: '02:ab:00:00:00:05', name: 'printer-1.lab.test', cltt: NOW - 600, validLifetime: 3600, state: 0 },
    });
    expect(parseLease(lease({ hostname: '' }))).toEqual({ lease: expect.not.objectContaining({ name: expect.anything() }) });
  });

  it('is left out, with the field that failed, when a field is not valid', () => {
    for (const [fields, reason] of [
      [{ 'ip-address': '10.0.0.256' }, 'usable IPv4 address'],
      [{ 'ip-address': 'fd00::1' }, 'usable IPv4 address'],
      [{ 'ip-address': '127.0.0.1' }, 'usable IPv4 address'],
      [{ 'ip-address': 42 }, 'usable IPv4 address'],
      [{ 'hw-address': '' }, 'no 6-octet MAC'],
      [{ 'hw-address': '00:00:00:00:00:00' }, 'no 6-octet MAC'],
      [{ 'hw-address': '02:00:00:00:00:05:06:07' }, 'no 6-octet MAC'],
      [{ 'hw-address': '02:00:00:00:00:0g' }, 'no 6-octet MAC'],
      [{ hostname: 'bad name; rm -rf /' }, 'no DNS name'],
      [{ hostname: `${'a'.repeat(64)}.lab` }, 'no DNS name'],
      [{ hostname: `${'a.'.repeat(127)}ab` }, 'no DNS name'],
      [{ hostname: ['x'] }, 'not text'],
      [{ cltt: -1 }, 'times out of range'],
      [{ cltt: 1.5 }, 'times out of range'],
      [{ 'valid-lft': 2 ** 32 }, 'times out of range'],
      [{ 'valid-lft': '3600' }, 'times out of range'],
      [{ state: 'default' }, 'state that is not a number'],
    ] as const) {
      const answer = parseLease(lease(fields));
      expect(answer).toMatchObject({ invalid: expect.stringContaining(reason) });
    }
    expect(parseLease(lease({ hostname: 'a b' }))).toEqual({ invalid: 'the lease of 10.0.0.5 has a host name that is no DNS name', address: '10.0.0.5' });
    expect(parseLease(null)).toEqual({ invalid: 'a lease that is not an object' });
    expect(parseLease([lease({})])).toEqual({ invalid: 'a lease that is not an object' });
  });

  it('that is declined names no client and is no error', () => {
    expect(parseLease(lease({ state: 1, 'hw-address': '' }))).toEqual({ declined: true });
    expect(validLeases([lease({ state: 1, 'hw-address': '' }), lease({ hostname: 'bad name' }), lease({})])).toEqual({
      leases: [parsed({})], invalid: [{ invalid: 'the lease of 10.0.0.5 has a host name that is no DNS name', address: '10.0.0.5' }],
    });
  });

  it('names are DNS names only', () => {
    expect(cleanName('Host_1.example.')).toBe('host_1.example');
    for (const bad of ['', '.', '-a', 'a-', 'a..b', 'a b', 'ä', 'a/b', 'x'.repeat(254)]) expect(cleanName(bad)).toBeUndefined();
  });
});

describe('the clients of the leases', () => {
  it('makes each client with an active lease an entry at its latest address: its MAC, active addresses, name, and a fact per lease', () => {
    const leases = [
      parsed({ 'ip-address': '10.0.0.9', 'hw-address': '02:00:00:00:00:01', hostname: 'laptop.corp.example', cltt: NOW - 100 }),
      parsed({ 'ip-address': '10.0.0.3', 'hw-address': '02:00:00:00:00:01', hostname: '', cltt: NOW - 7200, 'valid-lft': 3600 }),
      parsed({ 'ip-address': '10.1.0.3', 'hw-address': '02:00:00:00:00:01', hostname: '', cltt: NOW - 200, 'valid-lft': 0xffffffff }),
      parsed({ 'ip-address': '10.0.0.4', 'hw-address': '02:00:00:00:00:02', hostname: 'gone', cltt: NOW - 7200, 'valid-lft': 3600 }),
      parsed({ 'ip-address': '10.0.0.6', 'hw-address': '02:00:00:00:00:03', hostname: 'reclaimed', state: 2 }),
    ];
    expect(clientFacts(leases, NOW)).toEqual([{
      address: '10.0.0.9',
      ipAddresses: ['10.0.0.9', '10.1.0.3'],
      macAddresses: ['02:00:00:00:00:01'],
      hostname: 'laptop',
      fqdn: 'laptop.corp.example',
      attributes: {},
      evidence: {
        'dhcpLease:10.0.0.9': { macAddress: '02:00:00:00:00:01', hostname: 'laptop.corp.example', start: new Date((NOW - 100) * 1000).toISOString(), end: new Date((NOW + 3500) * 1000).toISOString() },
        'dhcpLease:10.1.0.3': { macAddress: '02:00:00:00:00:01', start: new Date((NOW - 200) * 1000).toISOString(), end: null },
        // Expired: history of the client, not one of its addresses.
        'dhcpLease:10.0.0.3': { macAddress: '02:00:00:00:00:01', start: new Date((NOW - 7200) * 1000).toISOString(), end: new Date((NOW - 3600) * 1000).toISOString() },
      },
    }]);
  });

  it('keeps at most 16 leases and addresses of one client', () => {
    const many = Array.from({ length: 40 }, (_, i) => parsed({ 'ip-address': `10.0.1.${i + 1}`, cltt: NOW - i }));
    const [client] = clientFacts(many, NOW);
    expect(client?.address).toBe('10.0.1.1');
    expect(client?.ipAddresses).toHaveLength(16);
    expect(Object.keys(client?.evidence ?? {})).toHaveLength(16);
  });
});

/** An HTTP server that answers each request with the next of `answers` (status, body), and records what it was asked. */
async function peer(answers: ((body: Record<string, unknown>) => [number, string])[]) {
  const asked: { body: Record<string, unknown>; authorization?: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      asked.push({ body, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      const answer = answers[Math.min(asked.length - 1, answers.length - 1)] as (b: Record<string, unknown>) => [number, string];
      const [status, text] = answer(body);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, asked, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const page = (leases: unknown[], result = 0) => (): [number, string] => [200, JSON.stringify([{ result, text: `${leases.length} IPv4 lease(s) found.`, arguments: { leases, count: leases.length } }])];
const leasesAt = (...octets: number[]) => octets.map((o) => lease({ 'ip-address': `10.0.0.${o}`, 'hw-address': `02:00:00:00:00:${o.toString(16).padStart(2, '0')}` }));
const options = (port: number) => ({ host: '127.0.0.1', port, timeoutMs: 5000, deadline: Date.now() + 60_000 });
const credential = (id: string, password: string) => ({ id, name: id, kind: 'HTTP_BASIC', settings: { username: 'reader' }, secrets: { password } }) as unknown as RevealedCredential;

describe('the paged read of the leases', () => {
  it('asks page after page from the last address, and stops at a short page', async () => {
    const server = await peer([page(leasesAt(1, 2)), page(leasesAt(3, 4)), page(leasesAt(5))]);
    try {
      const read = await readLeases(options(server.port), [], { pageSize: 2, maxLeases: 100 });
      expect(read).toMatchObject({ pages: 3, complete: true });
      expect(read.leases).toHaveLength(5);
      expect(server.asked.map((a) => a.body.arguments)).toEqual([{ from: 'start', limit: 2 }, { from: '10.0.0.2', limit: 2 }, { from: '10.0.0.4', limit: 2 }]);
      expect(server.asked.every((a) => a.body.command === 'lease4-get-page' && JSON.stringify(a.body.service) === '["dhcp4"]' && !a.authorization)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('ends at an empty result (3), and tries each credential until one is accepted', async () => {
    const server = await peer([() => [401, ''], page(leasesAt(1, 2)), page([], 3)]);
    try {
      const read = await readLeases(options(server.port), [credential('wrong', 'nope'), credential('right', 'secret')], { pageSize: 2, maxLeases: 100 });
      expect(read).toMatchObject({ pages: 2, complete: true, credentialId: 'right' });
      expect(server.asked.map((a) => a.authorization)).toEqual([
        `Basic ${Buffer.from('reader:nope').toString('base64')}`, `Basic ${Buffer.from('reader:secret').toString('base64')}`, `Basic ${Buffer.from('reader:secret').toString('base64')}`,
      ]);
    } finally {
      await server.close();
    }
  });

  it('gives a code, never a crash, for every answer that is not what Kea sends', async () => {
    const cases: [((body: Record<string, unknown>) => [number, string])[], string, number][] = [
      [[() => [401, 'no']], 'DHCP_AUTH_FAILED', 0],
      [[() => [404, '<html>']], 'DHCP_API_ERROR', 0],
      [[() => [200, '<html>not json']], 'DHCP_MALFORMED_ANSWER', 0],
      [[() => [200, '[]']], 'DHCP_MALFORMED_ANSWER', 0],
      [[() => [200, '[{"result":"0"}]']], 'DHCP_MALFORMED_ANSWER', 0],
      [[() => [200, '[{"result":0,"arguments":{"leases":"many"}}]']], 'DHCP_MALFORMED_ANSWER', 1],
      [[page(leasesAt(1, 2, 3))], 'DHCP_MALFORMED_ANSWER', 1],
      [[() => [200, '[{"result":2,"text":"\'lease4-get-page\' command not supported."}]']], 'DHCP_COMMAND_UNSUPPORTED', 1],
      [[() => [200, '[{"result":1,"text":"Unable to forward command to the dhcp4 service"}]']], 'DHCP_API_ERROR', 1],
      // Pages that do not advance (the same page again), or end with no address.
      [[page(leasesAt(1, 2)), page(leasesAt(1, 2))], 'DHCP_MALFORMED_ANSWER', 2],
      [[page([...leasesAt(1), { hostname: 'x' }])], 'DHCP_MALFORMED_ANSWER', 1],
      // A failure after the first page leaves the read incomplete.
      [[page(leasesAt(1, 2)), () => [200, '[{"result":1,"text":"database error"}]']], 'DHCP_READ_INCOMPLETE', 2],
      [[page(leasesAt(1, 2)), () => [503, '']], 'DHCP_READ_INCOMPLETE', 1],
      // More leases than maxLeases: a partial read.
      [[page(leasesAt(1, 2)), page(leasesAt(3, 4)), page(leasesAt(5, 6))], 'DHCP_LEASES_TRUNCATED', 3],
    ];
    for (const [answers, code, pages] of cases) {
      const server = await peer(answers);
      try {
        const read = await readLeases(options(server.port), [], { pageSize: 2, maxLeases: 5 });
        expect({ code: read.failure?.code, pages: read.pages, complete: read.complete }).toEqual({ code, pages, complete: false });
      } finally {
        await server.close();
      }
    }
  });

  it('refuses an answer larger than the limit, and gives CONNECTION_REFUSED where nothing listens', async () => {
    const huge = 'x'.repeat(33 * 1024 * 1024);
    const server = await peer([() => [200, huge]]);
    const { port } = server;
    try {
      expect((await readLeases(options(port), [], { pageSize: 2, maxLeases: 3 })).failure?.code).toBe('DHCP_MALFORMED_ANSWER');
    } finally {
      await server.close();
    }
    expect((await readLeases(options(port), [], { pageSize: 2, maxLeases: 3 })).failure?.code).toBe('CONNECTION_REFUSED');
  });
});
