// The DNS connector's wire parser, TSIG verifier and name mapping, store-free: well-formed answers
// as a server writes them (with name compression), hostile ones (pointer loops, lengths past the
// end, counts that lie, mangled octets) that must be a DnsFormatError and never another error, and
// the names each address gets from a zone.
import { createHmac } from 'node:crypto';
import { decodeMessage, DnsFormatError, encodeQuery, nameToWire, readName, RR_TYPE, type DnsRecord } from '../../src/features/discovery/connectors/dns/dns-message.js';
import { addressNameFacts, namedAddresses, reverseName, sharedNames } from '../../src/features/discovery/connectors/dns/dns-names.js';
import { signRequest, TsigInvalid, TsigRefused, TsigVerifier } from '../../src/features/discovery/connectors/dns/dns-tsig.js';

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u32 = (n: number) => Buffer.from([(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
const header = (id: number, flags: number, qd: number, an: number, ns = 0, ar = 0) => Buffer.concat([u16(id), u16(flags), u16(qd), u16(an), u16(ns), u16(ar)]);
const rr = (name: Buffer, type: number, rdata: Buffer, rrClass = 1) => Buffer.concat([name, u16(type), u16(rrClass), u32(300), u16(rdata.length), rdata]);
/** A pointer to an offset of the message. */
const ptr = (offset: number) => Buffer.from([0xc0 | (offset >> 8), offset & 0xff]);

/** An AXFR answer of example.test as a server writes it: the question, then SOA, A, AAAA, CNAME, PTR, a TXT and the closing SOA, names compressed. */
function axfrAnswer(id = 7): Buffer {
  const question = Buffer.concat([nameToWire('example.test'), u16(RR_TYPE.AXFR), u16(1)]);
  const zone = ptr(12); // example.test in the question
  const soa = Buffer.concat([Buffer.from([2]), Buffer.from('ns'), zone, Buffer.from([10]), Buffer.from('hostmaster'), zone, u32(2026112701), u32(3600), u32(600), u32(86400), u32(300)]);
  const www = Buffer.concat([Buffer.from([3]), Buffer.from('www'), zone]);
  const records = [
    rr(zone, RR_TYPE.SOA, soa),
    rr(Buffer.concat([Buffer.from([4]), Buffer.from('Host'), zone]), RR_TYPE.A, Buffer.from([10, 0, 0, 5])),
    rr(Buffer.concat([Buffer.from([4]), Buffer.from('host'), zone]), RR_TYPE.AAAA, Buffer.from('20010db8000000000000000000000005', 'hex')),
    rr(www, RR_TYPE.CNAME, Buffer.concat([Buffer.from([4]), Buffer.from('host'), zone])),
    rr(Buffer.concat([Buffer.from([1]), Buffer.from('5'), zone]), RR_TYPE.PTR, Buffer.concat([Buffer.from([4]), Buffer.from('host'), zone])),
    rr(zone, 16, Buffer.from('\u0005hello')),
    rr(zone, RR_TYPE.SOA, soa),
  ];
  return Buffer.concat([header(id, 0x8400, 1, records.length), question, ...records]);
}

const expectFormatError = (message: Buffer, pattern?: RegExp) => {
  expect(() => decodeMessage(message)).toThrow(DnsFormatError);
  if (pattern) expect(() => decodeMessage(message)).toThrow(pattern);
};

describe('the DNS message parser', () => {
  it('reads a zone transfer answer with compressed names: SOA, A, AAAA (canonical), CNAME, PTR, another type, names in lower case', () => {
    const message = decodeMessage(axfrAnswer());
    expect(message).toMatchObject({ id: 7, response: true, rcode: 0, questions: [{ name: 'example.test', type: RR_TYPE.AXFR }] });
    expect(message.answers.map((r) => [r.name, r.data])).toEqual([
      ['example.test', { type: 'SOA', mname: 'ns.example.test', rname: 'hostmaster.example.test', serial: 2026112701 }],
      ['host.example.test', { type: 'A', address: '10.0.0.5' }],
      ['host.example.test', { type: 'AAAA', address: '2001:db8::5' }],
      ['www.example.test', { type: 'CNAME', target: 'host.example.test' }],
      ['5.example.test', { type: 'PTR', target: 'host.example.test' }],
      ['example.test', { type: 'OTHER', code: 16 }],
      ['example.test', { type: 'SOA', mname: 'ns.example.test', rname: 'hostmaster.example.test', serial: 2026112701 }],
    ]);
  });

  it('encodes a query the parser reads back, and refuses a name that is no DNS name', () => {
    expect(decodeMessage(encodeQuery(513, 'Example.TEST.', RR_TYPE.AXFR))).toMatchObject({ id: 513, response: false, questions: [{ name: 'example.test', type: RR_TYPE.AXFR }], answers: [] });
    expect(() => encodeQuery(1, 'bad name.test', RR_TYPE.AXFR)).toThrow(DnsFormatError);
    expect(() => encodeQuery(1, `${'a'.repeat(64)}.test`, RR_TYPE.AXFR)).toThrow(DnsFormatError);
    expect(() => encodeQuery(1, Array(130).fill('ab').join('.'), RR_TYPE.AXFR)).toThrow(/255 octets/);
  });

  it('refuses a compression pointer to itself, one that points forward, and a chain that would loop', () => {
    const self = Buffer.concat([header(1, 0x8000, 1, 0), ptr(12), u16(1), u16(1)]);
    expectFormatError(self, /does not point back/);
    const forward = Buffer.concat([header(1, 0x8000, 1, 0), ptr(20), u16(1), u16(1), Buffer.from([1, 0x61, 0])]);
    expectFormatError(forward, /does not point back/);
    // a.<pointer to the start of the name>: a loop through the label before the pointer.
    const loop = Buffer.concat([header(1, 0x8000, 1, 0), Buffer.from([1, 0x61]), ptr(12), u16(1), u16(1)]);
    expectFormatError(loop, /does not point back/);
  });

  it('follows a backward chain of pointers, and bounds the name it builds to 255 octets', () => {
    // Names at 12, 15, 18, ...: each one label and a pointer to the one before.
    const parts: Buffer[] = [Buffer.from([1, 0x61, 0])];
    let at = 12;
    for (let i = 0; i < 200; i++) {
      parts.push(Buffer.concat([Buffer.from([1, 0x62]), ptr(at)]));
      at += i === 0 ? 3 : 4;
    }
    const body = Buffer.concat([header(1, 0x8000, 0, 0), ...parts]);
    expect(readName(body, 12 + 3).name).toBe('b.a');
    expect(readName(body, 12 + 3 + 4 * 3).name).toBe('b.b.b.b.a');
    expect(() => readName(body, at)).toThrow(/longer than 255 octets/);
  });

  it('refuses lengths and counts that run past the message, wrong record sizes, unknown label types and trailing octets', () => {
    const good = axfrAnswer();
    expectFormatError(good.subarray(0, 11), /shorter than its header/);
    expectFormatError(good.subarray(0, good.length - 3), /past the end/);
    // One answer more than there is.
    const lying = Buffer.from(good);
    lying.writeUInt16BE(8, 6);
    expectFormatError(lying, /past the end/);
    // A record whose length runs past the message.
    const long = Buffer.concat([header(1, 0x8000, 0, 1), rr(nameToWire('a.test'), RR_TYPE.A, Buffer.from([1, 2, 3, 4]))]);
    long.writeUInt16BE(500, long.length - 6);
    expectFormatError(long, /past the end/);
    expectFormatError(Buffer.concat([header(1, 0x8000, 0, 1), rr(nameToWire('a.test'), RR_TYPE.A, Buffer.from([1, 2, 3, 4, 5]))]), /not 4 octets/);
    expectFormatError(Buffer.concat([header(1, 0x8000, 0, 1), rr(nameToWire('a.test'), RR_TYPE.AAAA, Buffer.from([1, 2, 3, 4]))]), /not 16 octets/);
    // A CNAME whose name runs on past its record into the next.
    const cname = rr(nameToWire('a.test'), RR_TYPE.CNAME, Buffer.from([1, 0x62]));
    expectFormatError(Buffer.concat([header(1, 0x8000, 0, 2), cname, rr(nameToWire('c.test'), RR_TYPE.A, Buffer.from([1, 2, 3, 4]))]));
    expectFormatError(Buffer.concat([header(1, 0x8000, 1, 0), Buffer.from([0x41, 0x61, 0]), u16(1), u16(1)]), /unknown label type/);
    expectFormatError(Buffer.concat([good, Buffer.from([0])]), /after the last record/);
    // A TSIG record among the answers.
    const tsig = Buffer.concat([nameToWire('hmac-sha256'), Buffer.alloc(6), u16(300), u16(0), u16(1), u16(0), u16(0)]);
    expectFormatError(Buffer.concat([header(1, 0x8000, 0, 1), rr(nameToWire('key'), RR_TYPE.TSIG, tsig, 255)]), /TSIG record that is not the last/);
  });

  it('answers every mangled message with a record list or a DnsFormatError, never another error', () => {
    const good = axfrAnswer();
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      const mangled = Buffer.from(good.subarray(0, random(3) === 0 ? random(good.length + 1) : good.length));
      for (let flips = 1 + random(4); flips > 0 && mangled.length; flips--) mangled[random(mangled.length)] = random(256);
      try {
        decodeMessage(mangled);
      } catch (error) {
        expect(error).toBeInstanceOf(DnsFormatError);
      }
    }
    for (let i = 0; i < 1000; i++) {
      const noise = Buffer.from(Array.from({ length: random(600) }, () => random(256)));
      try {
        decodeMessage(noise);
      } catch (error) {
        expect(error).toBeInstanceOf(DnsFormatError);
      }
    }
  });
});

describe('TSIG (hmac-sha256)', () => {
  const key = { name: 'xfr-key', secret: Buffer.from('0123456789abcdef0123456789abcdef') };
  const wire = (name: string) => nameToWire(name);
  const now = 1_800_000_000;

  /** An answer signed as RFC 8945 §4.3 says a server signs its first one, computed here on its own. */
  function signedAnswer(requestMac: Buffer, secret: Buffer, error = 0): Buffer {
    const body = Buffer.concat([header(7, 0x8400, 0, 0), Buffer.alloc(0)]);
    const time = Buffer.alloc(6);
    time.writeUIntBE(now, 0, 6);
    const variables = Buffer.concat([wire('xfr-key'), u16(255), u32(0), wire('hmac-sha256'), time, u16(300), u16(error), u16(0)]);
    const mac = createHmac('sha256', secret).update(Buffer.concat([u16(requestMac.length), requestMac, body, variables])).digest();
    const rdata = Buffer.concat([wire('hmac-sha256'), time, u16(300), u16(mac.length), mac, u16(7), u16(error), u16(0)]);
    const answer = Buffer.concat([body, rr(wire('xfr-key'), RR_TYPE.TSIG, rdata, 255)]);
    answer.writeUInt16BE(1, 10);
    return answer;
  }

  it('signs a request with a TSIG record the parser reads, and verifies an answer signed with the same secret', () => {
    const { signed, mac } = signRequest(encodeQuery(7, 'example.test', RR_TYPE.AXFR), key, now);
    expect(decodeMessage(signed).tsig).toMatchObject({ keyName: 'xfr-key', data: { algorithm: 'hmac-sha256', timeSigned: now, fudge: 300, originalId: 7, error: 0 } });
    const answer = signedAnswer(mac, key.secret);
    expect(() => new TsigVerifier(key, mac, () => now).verify(answer, decodeMessage(answer))).not.toThrow();
  });

  it('refuses an answer signed with another secret, one signed too long ago, one altered, and one that is not signed', () => {
    const { mac } = signRequest(encodeQuery(7, 'example.test', RR_TYPE.AXFR), key, now);
    const forged = signedAnswer(mac, Buffer.from('another secret'));
    expect(() => new TsigVerifier(key, mac, () => now).verify(forged, decodeMessage(forged))).toThrow(TsigInvalid);
    const answer = signedAnswer(mac, key.secret);
    expect(() => new TsigVerifier(key, mac, () => now + 301).verify(answer, decodeMessage(answer))).toThrow(/more than 300 s/);
    const altered = Buffer.from(answer);
    altered.writeUInt16BE(0x8405, 2);
    expect(() => new TsigVerifier(key, mac, () => now).verify(altered, decodeMessage(altered))).toThrow(TsigInvalid);
    const unsigned = header(7, 0x8409, 0, 0);
    expect(() => new TsigVerifier(key, mac, () => now).verify(unsigned, decodeMessage(unsigned))).toThrow(TsigRefused);
  });

  it('takes a TSIG error (BADKEY) as the refusal of the key', () => {
    const { mac } = signRequest(encodeQuery(7, 'example.test', RR_TYPE.AXFR), key, now);
    const refused = signedAnswer(mac, key.secret, 17);
    expect(() => new TsigVerifier(key, mac, () => now).verify(refused, decodeMessage(refused))).toThrow(/BADKEY/);
  });
});

describe('the names of an address', () => {
  const a = (name: string, address: string): DnsRecord => ({ name, class: 1, ttl: 300, data: { type: address.includes(':') ? 'AAAA' : 'A', address } });
  const cname = (name: string, target: string): DnsRecord => ({ name, class: 1, ttl: 300, data: { type: 'CNAME', target } });

  it('gathers forward names and aliases (CNAME chains, a loop ended), leaves out wildcards and loopback, and takes the PTR name, else the one name of its own, as the FQDN', () => {
    const records = [
      a('h1.lab.test', '10.0.0.11'), a('api.lab.test', '10.0.0.11'), a('api.lab.test', '10.0.0.12'), a('h2.lab.test', '10.0.0.12'), a('mail.lab.test', '10.0.0.12'),
      cname('www.lab.test', 'web.lab.test'), cname('web.lab.test', 'h2.lab.test'), cname('loop1.lab.test', 'loop2.lab.test'), cname('loop2.lab.test', 'loop1.lab.test'),
      a('*.lab.test', '10.0.0.50'), a('localhost.lab.test', '127.0.0.1'), a('v6.lab.test', '2001:db8::1'),
    ];
    const named = namedAddresses(records);
    expect(named).toEqual([
      { address: '10.0.0.11', forward: ['api.lab.test', 'h1.lab.test'], aliases: [] },
      { address: '10.0.0.12', forward: ['api.lab.test', 'h2.lab.test', 'mail.lab.test'], aliases: ['web.lab.test', 'www.lab.test'] },
      { address: '2001:db8::1', forward: ['v6.lab.test'], aliases: [] },
    ]);
    const shared = sharedNames(named);
    expect([...shared]).toEqual(['api.lab.test']);
    expect(addressNameFacts(named[0]!, [], shared)).toEqual({ fqdn: 'h1.lab.test', attributes: { dnsNames: 'api.lab.test,h1.lab.test' } });
    // Two names of its own and no PTR name: no FQDN, only the names.
    expect(addressNameFacts(named[1]!, [], shared)).toEqual({ attributes: { dnsNames: 'api.lab.test,h2.lab.test,mail.lab.test,web.lab.test,www.lab.test' } });
    expect(addressNameFacts(named[1]!, ['h2.lab.test'], shared).fqdn).toBe('h2.lab.test');
  });

  it('names the reverse tree of IPv4 and IPv6 addresses', () => {
    expect(reverseName('10.77.0.11')).toBe('11.0.77.10.in-addr.arpa');
    expect(reverseName('2001:db8::1')).toBe(`1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`);
  });
});
