// Which addresses a credential's match pattern covers: CIDRs and IPs against the address, host name
// patterns against the host name.
import { patternCovers } from '../../src/features/credentials/credential-match.js';

describe('a credential match pattern', () => {
  it.each([
    ['10.20.0.0/16', '10.20.30.41', true],
    ['10.20.0.0/16', '10.21.0.1', false],
    ['10.20.30.41/32', '10.20.30.41', true],
    ['10.20.30.41/32', '10.20.30.42', false],
    ['0.0.0.0/0', '203.0.113.9', true],
    ['192.168.1.128/25', '192.168.1.127', false],
    ['192.168.1.128/25', '192.168.1.255', true],
    ['fd00::/64', 'fd00::2', true],
    ['fd00::/64', 'fd00:0:0:1::2', false],
    ['2001:DB8::/32', '2001:db8:ffff::1', true],
    ['::/0', '::1', true],
  ])('as CIDR %s covers %s: %p', (pattern, ip, covered) => {
    expect(patternCovers(pattern, ip, undefined)).toBe(covered);
  });

  it('as CIDR does not cover an address of the other family, nor a host known by name only', () => {
    expect(patternCovers('10.0.0.0/8', 'fd00::2', 'db1')).toBe(false);
    expect(patternCovers('fd00::/8', '10.0.0.1', 'db1')).toBe(false);
    expect(patternCovers('0.0.0.0/0', undefined, 'db1')).toBe(false);
  });

  it('as an IP covers that address only, IPv6 in any case', () => {
    expect(patternCovers('10.20.30.41', '10.20.30.41', undefined)).toBe(true);
    expect(patternCovers('10.20.30.41', '10.20.30.4', undefined)).toBe(false);
    expect(patternCovers('FD00::2', 'fd00::2', undefined)).toBe(true);
    expect(patternCovers('10.20.30.41', undefined, '10.20.30.41')).toBe(false);
  });

  it('as an IP covers the same IPv6 address written differently', () => {
    expect(patternCovers('2001:db8:0:0::1', '2001:db8::1', undefined)).toBe(true);
    expect(patternCovers('2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', undefined)).toBe(true);
    expect(patternCovers('2001:db8::1', '2001:db8::2', undefined)).toBe(false);
  });

  it.each([
    ['db1.corp.example.com', 'db1.corp.example.com', true],
    ['db1.corp.example.com', 'DB1.Corp.Example.COM', true],
    ['*.corp.example.com', 'db1.corp.example.com', true],
    ['*.corp.example.com', 'a.b.corp.example.com', false],
    ['*.corp.example.com', 'corp.example.com', false],
    ['db?.corp.example.com', 'db7.corp.example.com', true],
    ['db?.corp.example.com', 'db10.corp.example.com', false],
    ['web-*', 'web-01', true],
    ['web-*', 'web-01.example.com', false],
    ['DB*', 'db-primary', true],
    ['db1.corp.example.com', 'db1xcorp.example.com', false],
  ])('as host name pattern %s covers %s: %p', (pattern, hostname, covered) => {
    expect(patternCovers(pattern, '10.0.0.1', hostname)).toBe(covered);
  });

  it('as host name pattern covers nothing without a host name, even when the IP would spell it', () => {
    expect(patternCovers('*', '10.0.0.1', undefined)).toBe(false);
    expect(patternCovers('*', '10.0.0.1', 'anything')).toBe(true);
  });
});
