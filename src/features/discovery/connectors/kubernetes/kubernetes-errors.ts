// The scan error codes of Kubernetes discovery: each one's meaning and the diagnosis rule that
// explains a failed run it leads (scan-error.ts). Codes keep their meaning once released.
import type { ScanErrorDefinition } from '../../scan-error.js';
import type { SharedErrorCode } from '../../shared-scan-errors.js';

export const KUBERNETES_ERRORS = {
  KUBERNETES_UNAUTHORIZED: {
    description: 'The API server refused every bearer token offered (HTTP 401).',
    explanation: {
      summary: 'The Kubernetes API server refused every KUBERNETES_TOKEN credential offered (401 Unauthorized): the cluster was not read.',
      causes: [
        "The token is wrong, expired (a projected service account token lives an hour by default) or its service account's secret was deleted.",
        'The token belongs to another cluster.',
      ],
      actions: [
        'Create a long-lived token for the inventory service account (kubectl create token inventory-reader --duration=8760h, or a kubernetes.io/service-account-token Secret) and put it in the credential.',
        'Check it with kubectl --server=https://ADDRESS:PORT --token=TOKEN get namespaces.',
      ],
      confidence: 'HIGH',
    },
  },
  KUBERNETES_FORBIDDEN: {
    description: 'The API server refused a read the token may not do (HTTP 403): the error names the verb and the resource.',
    explanation: {
      summary: "The token was accepted but may not read some resources (403 Forbidden): those were not read, and nothing was retired.",
      causes: [
        'The service account is not bound to the ClusterRole of docs/discovery.md, or the role lacks the verb and resource the error names.',
        'A RoleBinding (one namespace) was made where a ClusterRoleBinding is needed.',
      ],
      actions: [
        'Apply the ClusterRole and ClusterRoleBinding of docs/discovery.md (get and list on nodes, pods, namespaces, services and ingresses).',
        'Check with kubectl auth can-i list pods --all-namespaces --as=system:serviceaccount:NAMESPACE:ACCOUNT.',
      ],
      confidence: 'HIGH',
    },
  },
  KUBERNETES_CERTIFICATE_UNTRUSTED: {
    description: "The API server's certificate is not signed by the credential's CA, does not name the address, or is not the pinned fingerprint the credential names; nothing was sent.",
    explanation: {
      summary: "The API server presented a certificate the credential does not trust, so the token was not sent.",
      causes: [
        "The credential's caCertificate is not the cluster's CA (another cluster's, or the CA was rotated).",
        'The certificate names another host than the address scanned (its subject alternative names).',
        "The credential's certificateSha256 is not the fingerprint of the certificate the server presents.",
      ],
      actions: [
        "Put the cluster's CA (certificate-authority-data of the kubeconfig, base64-decoded) in the credential's caCertificate.",
        'Scan the API server by a name or address its certificate carries (openssl s_client -connect ADDRESS:PORT shows them).',
        'Or leave caCertificate and certificateSha256 out: the certificate is then pinned at first contact.',
      ],
      confidence: 'HIGH',
    },
  },
  KUBERNETES_CERTIFICATE_CHANGED: {
    description: "The API server's certificate differs from the one pinned at first contact; nothing was sent.",
    explanation: {
      summary: "The API server's certificate differs from the one pinned at first contact: the token was not sent.",
      causes: [
        "The API server's certificate was renewed (kubeadm renews it yearly, managed clusters rotate it).",
        'Something between the worker and the API server intercepts TLS (a proxy, or an attack).',
      ],
      actions: [
        "Compare the new certificate's SHA-256 fingerprint in the error with the API server's (openssl s_client -connect ADDRESS:PORT | openssl x509 -fingerprint -sha256).",
        'If the change is expected, accept the new certificate (POST /api/v1/discovery/pins/accept with the fingerprint of the error) and scan again.',
        'If it is not expected, treat it as a security incident.',
      ],
      confidence: 'HIGH',
    },
  },
  NOT_KUBERNETES: {
    description: 'The address answered HTTPS but not as a Kubernetes API server (no API object in JSON).',
    explanation: {
      summary: 'The address answered HTTPS, but not as a Kubernetes API server.',
      causes: [
        "The target's KUBERNETES port is another web server (an ingress controller, a dashboard), not the API server (6443, or 443 on managed clusters).",
        "The credential's apiServerUrl path does not lead to the API (a proxy's path).",
      ],
      actions: [
        'Run kubectl cluster-info with the cluster\'s kubeconfig: it names the API server\'s address and port.',
        "Correct the target's KUBERNETES port, or the credential's apiServerUrl.",
      ],
      confidence: 'MEDIUM',
    },
  },
  KUBERNETES_API_ERROR: {
    description: 'The API server answered a read with an error other than 401 or 403, or the exchange failed; what was read is kept, nothing is retired.',
    explanation: {
      summary: 'The API server answered a read with an error, or the exchange failed: what was read is kept, nothing was retired.',
      causes: [
        'The API server is overloaded or restarting (500, 503, 429), or a list kept expiring (410 Gone) while it was read.',
        'The cluster lacks an API the connector reads (networking.k8s.io/v1 Ingress, from Kubernetes 1.19).',
        'The port speaks no TLS, or a proxy cut the connection.',
      ],
      actions: [
        "Read the status and reason in the error message; check the API server's health (kubectl get --raw /readyz).",
        'Scan again once the API server answers kubectl get --raw /readyz with ok.',
      ],
      confidence: 'MEDIUM',
    },
  },
  KUBERNETES_LIST_TRUNCATED: {
    description: "A list brought more objects than the target's KUBERNETES maxObjects: the objects read are kept, nothing is retired.",
    explanation: {
      summary: "A list held more objects than the target's KUBERNETES maxObjects: what was read is kept, nothing was retired.",
      causes: [
        'The cluster holds more pods (or nodes, services, ingresses, namespaces) than the bound set on the target.',
        'The cluster grew since the bound was set (a scale-up, a batch of jobs).',
      ],
      actions: [
        "Count the cluster's objects: kubectl get pods -A --no-headers | wc -l (and nodes, services, ingresses, namespaces).",
        "Raise the target's settings.KUBERNETES.maxObjects above that count (the default is 100,000).",
      ],
      confidence: 'HIGH',
    },
  },
} as const satisfies Record<string, ScanErrorDefinition>;

/** The codes its connector raises: its own and the shared ones. */
export type KubernetesErrorCode = SharedErrorCode | keyof typeof KUBERNETES_ERRORS;
