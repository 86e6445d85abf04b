// The kinds of credential, each with its non-secret settings and its secret fields. Settings are
// validated strictly (an unknown field is a 400); secret fields are write-only.
import net from 'node:net';
import { z } from 'zod';
import type { components } from '../../platform/http/api-types.js';

export const CREDENTIAL_KINDS = ['SSH_PASSWORD', 'SSH_KEY', 'SNMP_V2C', 'SNMP_V3', 'WINRM', 'HTTP_BASIC', 'CLOUD_ACCESS_KEY', 'DNS_TSIG', 'LDAP_BIND', 'KUBERNETES_TOKEN', 'AWS_ACCESS_KEY', 'AZURE_CLIENT_SECRET'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** The kinds of some credentials, by id (a diagnosis names the kinds a run tried). */
export interface CredentialKindLookup {
  kinds(ids: string[]): Promise<CredentialKind[]>;
}

const username = z.string().min(1).max(128);

interface KindDefinition {
  /** What it logs in to, for the forms that offer it. */
  description: string;
  settings: z.ZodType<Record<string, unknown>>;
  /** Secret fields, and whether the current settings make each one required. */
  secrets: Record<string, (settings: Record<string, unknown>) => boolean>;
  /** Secret fields whose value spans lines (a PEM key). */
  multiline?: readonly string[];
}

const always = () => true;
const never = () => false;

export const KINDS: Record<CredentialKind, KindDefinition> = {
  SSH_PASSWORD: { description: 'SSH with a user and password.', settings: z.strictObject({ username }), secrets: { password: always } },
  SSH_KEY: { description: 'SSH with a private key in OpenSSH or PEM form, and its passphrase if it has one.', settings: z.strictObject({ username }), secrets: { privateKey: always, passphrase: never }, multiline: ['privateKey'] },
  SNMP_V2C: { description: 'SNMP v2c with a community string.', settings: z.strictObject({}), secrets: { community: always } },
  SNMP_V3: {
    description: 'SNMP v3 with a user (USM) at a security level, and the keys that level needs.',
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
    description: 'Windows Remote Management with a user and password.',
    settings: z.strictObject({ username, port: z.number().int().min(1).max(65535).optional(), useTls: z.boolean().optional() }),
    secrets: { password: always },
  },
  HTTP_BASIC: { description: 'HTTP basic authentication with a user and password.', settings: z.strictObject({ username, baseUrl: z.url({ protocol: /^https?$/ }).optional() }), secrets: { password: always } },
  CLOUD_ACCESS_KEY: {
    description: "A cloud provider's access key and its secret.",
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
    description: 'A TSIG key (RFC 8945, HMAC-SHA256) that a DNS server asks of a zone transfer: its name, and its secret in base64.',
    settings: z.strictObject({
      keyName: z.string().max(253).regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/, 'a key name such as transfer-key or xfr.example.com'),
      algorithm: z.enum(['hmac-sha256']).optional(),
    }),
    secrets: { secret: always },
  },
  // A directory account for a simple bind: its DN (or user principal, user@domain, which Active
  // Directory takes), and the entry under which its computers are read.
  LDAP_BIND: {
    description: 'A directory account (LDAP simple bind): its DN or user principal (user@domain), the base DN its computers are read under, and its password.',
    settings: z.strictObject({
      bindDn: z.string().min(1).max(300).regex(/^[^\u0000-\u001f]+$/, 'a DN (cn=inventory,ou=service,dc=example,dc=com) or a user principal (inventory@example.com)'),
      baseDn: z.string().min(1).max(300).regex(/^[A-Za-z][A-Za-z0-9-]*=[^\u0000-\u001f]+$/, 'a DN such as dc=example,dc=com or OU=Computers,DC=corp,DC=example'),
    }),
    secrets: { password: always },
  },
  // A bearer token (a service account's) for a Kubernetes API server; its certificate is trusted by the cluster's CA, by its fingerprint, or pinned at first contact.
  KUBERNETES_TOKEN: {
    description: "A Kubernetes bearer token (a service account's), with the cluster's CA certificate or the API server certificate's SHA-256 fingerprint (else pinned at first contact).",
    settings: z.strictObject({
      apiServerUrl: z.url({ protocol: /^https$/ }).max(2048).optional(),
      caCertificate: z.string().max(20_000).regex(/-----BEGIN CERTIFICATE-----/, 'a PEM certificate').optional(),
      certificateSha256: z.string().regex(/^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$/, 'a SHA-256 fingerprint (64 hexadecimal digits, colons allowed)').optional(),
    }),
    secrets: { token: always },
  },
  // An IAM access key for the AWS connector, and the role it assumes in the account to read (with the external id the role's trust policy asks for).
  AWS_ACCESS_KEY: {
    description: "An AWS IAM access key (its id, and its secret access key as the secret), optionally with an IAM role to assume in the account read, and the external id the role's trust policy asks for.",
    settings: z.strictObject({
      accessKeyId: z.string().regex(/^[A-Z0-9]{16,128}$/, 'an access key id such as AKIAIOSFODNN7EXAMPLE'),
      roleArn: z.string().max(2048).regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, 'a role ARN such as arn:aws:iam::123456789012:role/inventory-reader').optional(),
      externalId: z.string().min(2).max(1224).regex(/^[\w+=,.@:/-]+$/, 'letters, digits and +=,.@:/-').optional(),
    }),
    secrets: { secretAccessKey: always },
  },
  // A service principal (an app registration's client id in a Microsoft Entra tenant) and its client secret, for the AZURE connector.
  AZURE_CLIENT_SECRET: {
    description: 'A Microsoft Entra service principal: its tenant id and client (application) id, and a client secret of the app registration as the secret.',
    settings: z.strictObject({
      tenantId: z.string().max(253).regex(/^([0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}|[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+)$/, 'a tenant id (a GUID) or its domain, such as contoso.onmicrosoft.com'),
      clientId: z.string().regex(/^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$/, 'an application (client) id, a GUID'),
    }),
    secrets: { clientSecret: always },
  },
};

export type CredentialKindDescription = components['schemas']['CredentialKindDescription'];

/** What GET /credential-kinds serves: each kind's settings as a JSON Schema and its secret fields, built once at load. */
export const CREDENTIAL_KIND_CATALOGUE: readonly CredentialKindDescription[] = CREDENTIAL_KINDS.map((kind) => {
  const { description, settings, secrets, multiline = [] } = KINDS[kind];
  return {
    kind,
    description,
    settings: z.toJSONSchema(settings),
    secretFields: Object.keys(secrets).map((name) => ({ name, multiline: multiline.includes(name) })),
  };
});

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
