// The kinds of credential, each with its non-secret settings and its secret fields. Settings are
// validated strictly (an unknown field is a 400); secret fields are write-only.
import net from 'node:net';
import { z } from 'zod';

export const CREDENTIAL_KINDS = ['SSH_PASSWORD', 'SSH_KEY', 'SNMP_V2C', 'SNMP_V3', 'WINRM', 'HTTP_BASIC', 'CLOUD_ACCESS_KEY', 'DNS_TSIG'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** The kinds of some credentials, by id (a diagnosis names the kinds a run tried). */
export interface CredentialKindLookup {
  kinds(ids: string[]): Promise<CredentialKind[]>;
}

const username = z.string().min(1).max(128);

interface KindDefinition {
  settings: z.ZodType<Record<string, unknown>>;
  /** Secret fields, and whether the current settings make each one required. */
  secrets: Record<string, (settings: Record<string, unknown>) => boolean>;
}

const always = () => true;
const never = () => false;

export const KINDS: Record<CredentialKind, KindDefinition> = {
  SSH_PASSWORD: { settings: z.strictObject({ username }), secrets: { password: always } },
  SSH_KEY: { settings: z.strictObject({ username }), secrets: { privateKey: always, passphrase: never } },
  SNMP_V2C: { settings: z.strictObject({}), secrets: { community: always } },
  SNMP_V3: {
    settings: z
      .strictObject({
        username,
        securityLevel: z.enum(['noAuthNoPriv', 'authNoPriv', 'authPriv']),
        authProtocol: z.enum(['MD5', 'SHA', 'SHA224', 'SHA256', 'SHA384', 'SHA512']).optional(),
        privProtocol: z.enum(['DES', 'AES', 'AES256B', 'AES256R']).optional(),
        contextName: z.string().max(128).optional(),
      })
      .refine((s) => s.securityLevel === 'noAuthNoPriv' || s.authProtocol, { message: 'authProtocol is required at this securityLevel', path: ['authProtocol'] })
      .refine((s) => s.securityLevel !== 'authPriv' || s.privProtocol, { message: 'privProtocol is required at authPriv', path: ['privProtocol'] }),
    secrets: {
      authKey: (s) => s.securityLevel !== 'noAuthNoPriv',
      privKey: (s) => s.securityLevel === 'authPriv',
    },
  },
  WINRM: {
    settings: z.strictObject({ username, port: z.number().int().min(1).max(65535).optional(), useTls: z.boolean().optional() }),
    secrets: { password: always },
  },
  HTTP_BASIC: { settings: z.strictObject({ username, baseUrl: z.url({ protocol: /^https?$/ }).optional() }), secrets: { password: always } },
  CLOUD_ACCESS_KEY: {
    settings: z.strictObject({
      provider: z.enum(['AWS', 'AZURE', 'GCP', 'OCI', 'OTHER']),
      accessKeyId: z.string().min(1).max(256),
      region: z.string().max(64).optional(),
      tenantId: z.string().max(128).optional(),
    }),
    secrets: { secretAccessKey: always },
  },
  // A TSIG key (RFC 8945) for zone transfers: its name as the DNS server knows it, its secret in base64.
  DNS_TSIG: {
    settings: z.strictObject({
      keyName: z.string().max(253).regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/, 'a key name such as transfer-key or xfr.example.com'),
      algorithm: z.enum(['hmac-sha256']).optional(),
    }),
    secrets: { secret: always },
  },
};

export const MAX_SECRET_LENGTH = 16_384;

const HOST_PATTERN = /^(?=.{1,253}$)[A-Za-z0-9*?]([A-Za-z0-9*?-]*[A-Za-z0-9*?])?(\.[A-Za-z0-9*?]([A-Za-z0-9*?-]*[A-Za-z0-9*?])?)*$/;

/** Why a match pattern is not valid (a CIDR, an IP address, or a host name with * and ? wildcards), or undefined. */
export function matchPatternProblem(pattern: string): string | undefined {
  const slash = pattern.indexOf('/');
  if (slash >= 0) {
    const address = pattern.slice(0, slash);
    const bits = Number(pattern.slice(slash + 1));
    const family = net.isIP(address);
    if (!family) return 'the part before / is not an IP address';
    if (!/^\d{1,3}$/.test(pattern.slice(slash + 1)) || bits > (family === 4 ? 32 : 128)) return 'the prefix length is not valid';
    return undefined;
  }
  if (net.isIP(pattern)) return undefined;
  return HOST_PATTERN.test(pattern) ? undefined : 'not a CIDR, an IP address or a host name pattern';
}
