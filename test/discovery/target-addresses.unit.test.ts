import { chunkAddresses, expandAddresses, parseAddress, type ParsedAddress } from '../../src/features/discovery/target-addresses.js';

describe('target addresses', () => {
  it.each([
    ['10.0.0.7', 'IP', 1],
    ['fd00::1', 'IP', 1],
    ['10.0.0.0/24', 'CIDR', 254],
    ['10.0.0.5/30', 'CIDR', 2],
    ['10.0.0.8/31', 'CIDR', 2],
    ['10.0.0.9/32', 'CIDR', 1],
    ['10.0.0.10-10.0.0.20', 'RANGE', 11],
    ['10.0.0.250-255', 'RANGE', 6],
    ['db-01.lab.example.com', 'HOSTNAME', 1],
    ['3com.example', 'HOSTNAME', 1],
    ['127.0.0.1', 'IP', 1],
  ])('reads %s as %s of %i', (text, kind, count) => {
    expect(parseAddress(text)).toMatchObject({ kind, count });
  });

  it.each(['10.0.0.0/33', '10.0.0.20-10.0.0.10', '10.0.0.1-300', '300.1.1.1/24', 'fd00::/64', 'not_a host!', ''])('refuses %j', (text) => {
    expect(typeof parseAddress(text)).toBe('string');
  });

  it('writes an IPv6 address in its canonical form (RFC 5952)', () => {
    expect(parseAddress('FD00:0:0:0:0:0:0:1')).toMatchObject({ text: 'fd00::1', kind: 'IP' });
    expect(parseAddress('::FFFF:127.0.0.1')).toMatchObject({ text: '::ffff:127.0.0.1', kind: 'IP' });
  });

  it.each([
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['10.0.0.010', '10.0.0.8'],
  ])('refuses %j, which resolvers read as %s, and names that address', (text, read) => {
    expect(parseAddress(text)).toBe(`a numeric form that is no canonical address: resolvers read it as ${read}; write ${read}`);
  });

  it.each(['10.0.0.256', '1.2.3.4.5', '08.0.0.1', 'example.123', 'host.0x10'])('refuses %j: numeric, yet no IPv4 address, and no host name either', (text) => {
    expect(parseAddress(text)).toMatch(/^not an IPv4 address \(four parts of 0 to 255 without leading zeros\) nor a host name \(its last label is a number\)$/);
  });

  it.each(['0.0.0.0', '0.1.2.3', '::', '0.0.0.0/24', '0.0.0.1-5'])('refuses %j, which reaches the service\'s own host', (text) => {
    expect(parseAddress(text)).toMatch(/reaches the service's own host/);
  });

  it('expands entries in order, lazily', () => {
    const entries = ['10.0.0.0/30', '10.0.1.254-10.0.2.1', 'h.example.com'].map((t) => parseAddress(t) as ParsedAddress);
    expect([...expandAddresses(entries)]).toEqual(['10.0.0.1', '10.0.0.2', '10.0.1.254', '10.0.1.255', '10.0.2.0', '10.0.2.1', 'h.example.com']);
    const huge = expandAddresses([parseAddress('10.0.0.0/8') as ParsedAddress]);
    expect(huge.next().value).toBe('10.0.0.1');
  });

  describe('cut into chunks', () => {
    const parsed = (...texts: string[]) => texts.map((t) => parseAddress(t) as ParsedAddress);
    const chunks = (size: number, ...texts: string[]) => [...chunkAddresses(parsed(...texts), size)];

    it('cuts ranges across entries into chunks of the size, the last one smaller, each address once and in order', () => {
      const cut = chunks(4, '10.0.0.0/29', 'db.example', '10.0.1.250-255');
      expect(cut).toEqual([
        { entries: ['10.0.0.1-10.0.0.4'], size: 4, first: '10.0.0.1', last: '10.0.0.4' },
        { entries: ['10.0.0.5-10.0.0.6', 'db.example', '10.0.1.250-10.0.1.250'], size: 4, first: '10.0.0.5', last: '10.0.1.250' },
        { entries: ['10.0.1.251-10.0.1.254'], size: 4, first: '10.0.1.251', last: '10.0.1.254' },
        { entries: ['10.0.1.255-10.0.1.255'], size: 1, first: '10.0.1.255', last: '10.0.1.255' },
      ]);
      const again = cut.flatMap((c) => [...expandAddresses(parsed(...c.entries))]);
      expect(again).toEqual([...expandAddresses(parsed('10.0.0.0/29', 'db.example', '10.0.1.250-255'))]);
    });

    it('keeps a single address as an address (named on its own) and a slice of a range as a range', () => {
      const [chunk] = chunks(256, '10.0.0.7', '10.0.0.9/32');
      expect(chunk?.entries.map((e) => (parseAddress(e) as ParsedAddress).kind)).toEqual(['IP', 'RANGE']);
    });

    it('plans a /16 as 256 chunks without listing its addresses', () => {
      const cut = chunks(256, '10.20.0.0/16');
      expect(cut).toHaveLength(256);
      expect(cut.every((c) => c.entries.length === 1)).toBe(true);
      expect(cut.reduce((n, c) => n + c.size, 0)).toBe(65_534);
      expect([cut[0]?.first, cut[255]?.last]).toEqual(['10.20.0.1', '10.20.255.254']);
    });
  });
});
