// The form of user API tokens (svci_), integration keys (svcm_) and scanner tokens (svcs_): a prefix, 32 base62 characters
// of randomness (190 bits) and a 6-character checksum (CRC-32 of the rest), so a mistyped or
// truncated key is refused before any lookup. Only a keyed hash (HMAC-SHA-256) is ever stored.
import { createHmac, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const USER_TOKEN_PREFIX = 'svci_';
export const INTEGRATION_KEY_PREFIX = 'svcm_';
export const SCANNER_TOKEN_PREFIX = 'svcs_';
export type TokenPrefix = typeof USER_TOKEN_PREFIX | typeof INTEGRATION_KEY_PREFIX | typeof SCANNER_TOKEN_PREFIX;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const FORM = /^(svci_|svcm_|svcs_)([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

function base62(value: number, length: number): string {
  let out = '';
  for (let v = value; out.length < length; v = Math.floor(v / 62)) out = ALPHABET[v % 62] + out;
  return out;
}

function checksum(prefix: string, random: string): string {
  return base62(crc32(`${prefix}${random}`), CHECKSUM_LENGTH);
}

export function generateToken(prefix: TokenPrefix): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(62)];
  return `${prefix}${random}${checksum(prefix, random)}`;
}

/** The prefix of a well-formed token whose checksum matches; undefined otherwise. */
export function checkToken(token: string): TokenPrefix | undefined {
  const match = FORM.exec(token);
  if (!match) return undefined;
  const [, prefix, random, sum] = match as unknown as [string, TokenPrefix, string, string];
  return checksum(prefix, random) === sum ? prefix : undefined;
}

export function hashToken(token: string, pepper: string): string {
  return createHmac('sha256', pepper).update(token).digest('hex');
}

/** What a list may show of a token: its prefix and first four random characters. */
export function tokenHint(token: string): string {
  return `${token.slice(0, 9)}…`;
}
