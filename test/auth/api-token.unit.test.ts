import { checkToken, generateToken, hashToken, INTEGRATION_KEY_PREFIX, USER_TOKEN_PREFIX } from '../../src/features/auth/api-token.js';

describe('API token form', () => {
  it('carries its prefix, 190 bits of randomness and a checksum that catches a typing error', () => {
    const token = generateToken(USER_TOKEN_PREFIX);
    expect(token).toMatch(/^svci_[0-9A-Za-z]{38}$/);
    expect(checkToken(token)).toBe(USER_TOKEN_PREFIX);
    expect(checkToken(generateToken(INTEGRATION_KEY_PREFIX))).toBe(INTEGRATION_KEY_PREFIX);
    const swapped = token.slice(0, 10) + token[11] + token[10] + token.slice(12);
    if (swapped !== token) expect(checkToken(swapped)).toBeUndefined();
    for (let i = 5; i < token.length; i++) {
      const c = token[i] === 'x' ? 'y' : 'x';
      expect(checkToken(token.slice(0, i) + c + token.slice(i + 1))).toBeUndefined();
    }
    expect(checkToken(`svcx_${token.slice(5)}`)).toBeUndefined();
    expect(checkToken(token.slice(0, -1))).toBeUndefined();
  });

  it('never repeats a token and hashes it under the key only', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateToken(USER_TOKEN_PREFIX)));
    expect(tokens.size).toBe(1000);
    const [t] = tokens;
    expect(hashToken(t as string, 'pepper-a')).not.toEqual(hashToken(t as string, 'pepper-b'));
    expect(hashToken(t as string, 'pepper-a')).toMatch(/^[0-9a-f]{64}$/);
  });
});
