// The scan error codes of LDAP discovery (Active Directory, OpenLDAP): each one's meaning and the
// diagnosis rule that explains a failed run it leads (scan-error.ts). Codes keep their meaning once
// released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const LDAP_ERRORS = {
  LDAP_BIND_REFUSED: {
    description: 'The directory refused the bind of every LDAP_BIND credential offered (invalidCredentials: a wrong bind DN, user principal or password, or a disabled or locked account).',
    explanation: {
      summary: 'The directory refused the account and password offered: the scan read no computers.',
      causes: [
        "The credential's bind DN or user principal (user@domain) names no account, or its password is wrong or expired.",
        'The account is disabled or locked out (Active Directory answers invalidCredentials for both).',
      ],
      actions: [
        'Try the bind from the worker host: ldapwhoami -H ldaps://SERVER -D "BIND DN" -W (or ldapsearch -ZZ for StartTLS).',
        "Correct the LDAP_BIND credential's bindDn or password; unlock or re-enable the account.",
      ],
      confidence: 'HIGH',
    },
  },
  LDAP_CERTIFICATE_UNTRUSTED: {
    description: "The directory server's certificate is not signed by a trusted authority or does not name the address; no credential was sent.",
    explanation: {
      summary: 'The directory server presented a certificate that is not trusted, so no password was sent to it.',
      causes: [
        "The server's certificate comes from the organisation's own authority (an enterprise CA) or is self-signed (Samba makes one at provisioning), unknown to the worker's trust store.",
        'The certificate names another host than the address scanned.',
      ],
      actions: [
        "Add the authority's certificate (PEM) as the target's settings.LDAP.caCertificate.",
        'Scan the server by the name its certificate carries.',
        "Only on a trusted network: set the target's settings.LDAP.verifyCertificate to false (the certificate is still pinned at first contact).",
      ],
      confidence: 'HIGH',
    },
  },
  LDAP_CERTIFICATE_CHANGED: {
    description: "The directory server's certificate differs from the one pinned at first contact; no credential was sent.",
    explanation: {
      summary: "The directory server's certificate differs from the one pinned at first contact: the service did not bind.",
      causes: [
        "The server's certificate was renewed or replaced (an expiry, a new enterprise CA certificate, a rebuilt domain controller).",
        'Something between the worker and the server intercepts TLS (a proxy, or an attack).',
      ],
      actions: [
        "Compare the new certificate's SHA-256 fingerprint in the error with the server's (openssl s_client -connect SERVER:636 | openssl x509 -noout -fingerprint -sha256).",
        'If the change is expected, accept the new certificate (POST /api/v1/discovery/pins/accept with the fingerprint of the error) and scan again.',
        'If it is not expected, treat it as a security incident.',
      ],
      confidence: 'HIGH',
    },
  },
  LDAP_TLS_FAILED: {
    description: 'TLS could not be set up with the directory server: the StartTLS request was refused, or the TLS handshake failed (not an LDAPS port, no common protocol version).',
    explanation: {
      summary: 'The service could not set up TLS with the directory server, so nothing was read (it never binds in clear).',
      causes: [
        "The target's settings.LDAP.security does not match the port: ldaps wants the LDAPS port (636), starttls the LDAP port (389).",
        'The server has no certificate configured (OpenLDAP: olcTLSCertificateFile; Samba: tls enabled) and refuses StartTLS.',
        'The port answers another protocol than LDAP.',
      ],
      actions: [
        "Set the target's ports.LDAP and settings.LDAP.security together (636 with ldaps, 389 with starttls).",
        'Try from the worker host: openssl s_client -connect SERVER:636, or ldapsearch -ZZ -H ldap://SERVER.',
      ],
      confidence: 'MEDIUM',
    },
  },
  LDAP_SEARCH_FAILED: {
    description: "The directory answered the search of computers with an error (no such base DN, insufficient access, an unsupported control, a busy or unwilling server); what a partial read got is not loaded.",
    explanation: {
      summary: 'The directory refused or failed the search of its computer objects: the scan loaded none, and the assets keep what the last complete read gave.',
      causes: [
        "The LDAP_BIND credential's baseDn names no entry of the directory.",
        'The bind account may not read the computer objects or their attributes under the base DN.',
        'The server does not support the paged results control (RFC 2696) or failed part-way (a restart, a time limit).',
      ],
      actions: [
        'Look at the error text of the run; try the same search from the worker host: ldapsearch -E pr=500/noprompt -b "BASE DN" "(objectClass=computer)" dNSHostName.',
        "Correct the credential's baseDn, or grant the account read access to the computer objects (docs/discovery.md says which attributes).",
      ],
      confidence: 'MEDIUM',
    },
  },
  LDAP_SIZE_LIMIT: {
    description: 'The directory holds more computer objects under the base DN than settings.LDAP.maxEntries, or the server stopped the search at its own size limit; the scan loads none of them, and changes nothing.',
    explanation: {
      summary: 'The directory holds more computers than the limit allows (the target\'s, or the server\'s own): the scan loaded none, and the assets keep what the last complete read gave.',
      causes: [
        "The directory has more computer objects under the base DN than the target's settings.LDAP.maxEntries.",
        "The server's own size limit for the bind account is lower than the number of computers (OpenLDAP: sizelimit, size.prtotal; Active Directory: MaxPageSize applies per page, not to the total).",
      ],
      actions: [
        "Raise the target's settings.LDAP.maxEntries (up to 1,000,000), or narrow the credential's baseDn to an OU.",
        "Raise the server's limit for the bind account (OpenLDAP: limits dn.exact=\"BIND DN\" size.prtotal=unlimited).",
      ],
      confidence: 'HIGH',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type LdapErrorCode = SharedErrorCode | keyof typeof LDAP_ERRORS;
