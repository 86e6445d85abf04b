// The scan error codes of vCenter discovery: each one's meaning and the diagnosis rule that explains
// a failed run it leads (scan-error.ts). Codes keep their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const VCENTER_ERRORS = {
  VCENTER_AUTH_FAILED: {
    description: 'The vCenter refused every credential offered (InvalidLogin).',
    explanation: {
      summary: 'The vCenter refused every HTTP_BASIC credential offered: its inventory was not read.',
      causes: [
        'The user name or password of the credential is wrong, or the password was changed or expired.',
        'The account is locked out, or exists in another identity source (for example user@vsphere.local against a domain user).',
      ],
      actions: [
        'Sign in to the vSphere Client with the same user name and password.',
        "Update the credential's password, or name the user with its domain (user@vsphere.local).",
        'Give the account at least the read-only role on the vCenter root, propagated to its children.',
      ],
      confidence: 'HIGH',
    },
  },
  CERTIFICATE_UNTRUSTED: {
    description: 'The server certificate is not signed by a trusted authority or does not name the address; nothing was sent.',
    explanation: {
      summary: 'The vCenter presented a certificate that is not trusted, so nothing was sent to it.',
      causes: [
        "The vCenter uses its own VMware Certificate Authority (VMCA) or a self-signed certificate, unknown to the worker's trust store.",
        'The certificate names another host than the address scanned.',
      ],
      actions: [
        "Add the vCenter's root CA (from https://VCENTER/certs/download.zip) as the target's settings.VCENTER.caCertificate.",
        'Scan the vCenter by the name its certificate carries.',
        "Only on a trusted network: set the target's settings.VCENTER.verifyCertificate to false (the certificate is still pinned).",
      ],
      confidence: 'HIGH',
    },
  },
  CERTIFICATE_CHANGED: {
    description: 'The server certificate differs from the one pinned at first contact; nothing was sent.',
    explanation: {
      summary: "The vCenter's certificate differs from the one pinned at first contact: the service did not log in.",
      causes: [
        "The vCenter's certificate was renewed or replaced (a new VMCA certificate, an upgrade, a rebuild).",
        'Something between the worker and the vCenter intercepts TLS (a proxy, or an attack).',
      ],
      actions: [
        "Compare the new certificate's SHA-256 fingerprint in the error with the one the vCenter shows (vSphere Client, Certificate Management).",
        'If the change is expected, accept the new certificate (POST /api/v1/discovery/pins/accept with the fingerprint of the error) and scan again.',
        'If it is not expected, treat it as a security incident.',
      ],
      confidence: 'HIGH',
    },
  },
  NOT_A_VCENTER: {
    description: 'The address answered HTTPS but not the vSphere Web Services API (no SOAP answer at the SDK path).',
    explanation: {
      summary: 'The address answered HTTPS, but not the vSphere Web Services API.',
      causes: [
        'The address is another web server, or an ESXi host or appliance page without the SDK at that path.',
        "The target's VCENTER port or the credential's baseUrl path is not the vCenter's SDK (https://VCENTER/sdk).",
      ],
      actions: [
        'Open https://ADDRESS/sdk/vimServiceVersions.xml: a vCenter answers with its API versions.',
        "Correct the target's VCENTER port, or the credential's baseUrl.",
      ],
      confidence: 'MEDIUM',
    },
  },
  VCENTER_API_ERROR: {
    description: 'The vCenter answered a call with a fault other than a refused login.',
    explanation: {
      summary: 'The vCenter answered a call with a fault, so its inventory could not be read in full.',
      causes: [
        'The account lacks a privilege for some objects (NoPermission).',
        'The vCenter service is starting, overloaded or failing (a ServerFault).',
      ],
      actions: [
        "Read the fault's name in the error message; give the account the read-only role on the root, propagated.",
        "Check the vCenter's health (VAMI, https://VCENTER:5480) and scan again.",
      ],
      confidence: 'MEDIUM',
    },
  },
  VCENTER_PROTOCOL_ERROR: {
    description: 'The TLS handshake or the HTTP exchange with the vCenter failed.',
    explanation: {
      summary: 'The TLS handshake or the HTTP exchange with the vCenter failed.',
      causes: [
        'The port speaks no TLS (plain HTTP), or no TLS version or cipher is shared.',
        'A proxy or load balancer cut the connection.',
      ],
      actions: [
        'Check the port with openssl s_client -connect ADDRESS:PORT from the worker host.',
        "Set the target's VCENTER port to the vCenter's HTTPS port (443).",
      ],
      confidence: 'MEDIUM',
    },
  },
  VCENTER_READ_INCOMPLETE: {
    description: 'The vCenter could not read some properties of some objects; what was read is kept, nothing is retired.',
    explanation: {
      summary: 'The vCenter could not read some properties of some objects: what was read is kept, nothing was retired.',
      causes: [
        'Hosts were disconnected or not responding, so the vCenter could not give their details.',
        'The account may not read some objects.',
      ],
      actions: [
        'Check in the vSphere Client for disconnected hosts and for objects the account cannot see.',
        'Scan again once the hosts are connected.',
      ],
      confidence: 'MEDIUM',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type VcenterErrorCode = SharedErrorCode | keyof typeof VCENTER_ERRORS;
