import { expandAddresses, parseAddress, type ParsedAddress } from '../../src/features/discovery/target-addresses.js';

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
  ])('reads %s as %s of %i', (text, kind, count) => {
    expect(parseAddress(text)).toMatchObject({ kind, count });
  });

  it.each(['10.0.0.0/33', '10.0.0.20-10.0.0.10', '10.0.0.1-300', '300.1.1.1/24', 'fd00::/64', 'not_a host!', ''])('refuses %j', (text) => {
    expect(typeof parseAddress(text)).toBe('string');
  });

  it('expands entries in order, lazily', () => {
    const entries = ['10.0.0.0/30', '10.0.1.254-10.0.2.1', 'h.example.com'].map((t) => parseAddress(t) as ParsedAddress);
    expect([...expandAddresses(entries)]).toEqual(['10.0.0.1', '10.0.0.2', '10.0.1.254', '10.0.1.255', '10.0.2.0', '10.0.2.1', 'h.example.com']);
    const huge = expandAddresses([parseAddress('10.0.0.0/8') as ParsedAddress]);
    expect(huge.next().value).toBe('10.0.0.1');
  });
});
