// The certificate a TLS server presents, read in a handshake of its own before anything is sent to
// it (a vCenter, a Kubernetes API server): whether it chains to the trusted authorities and names
// the host, and its SHA-256 fingerprint, which each connector pins (host-state-store.ts).
import net from 'node:net';
import tls from 'node:tls';
import { networkErrorCode, type SharedErrorCode } from '../shared-scan-errors.js';

export interface PresentedCertificate {
  /** SHA-256, as AB:CD:... */
  fingerprint: string;
  /** Its subject, as CN=..., O=... */
  subject: string;
  /** It chains to the authorities trusted and names the host. */
  authorized: boolean;
  /** Why it is not authorized. */
  reason?: string;
}

/** A handshake that failed: `code` where the network said why (refused, unreachable, time-out), else none (a TLS failure). */
export class HandshakeFailure extends Error {
  constructor(readonly code: SharedErrorCode | undefined, message: string) {
    super(message);
  }
}

/** The server certificate a TLS socket's handshake showed, checked against its authorities and the host's name; none if it showed none. */
export function certificateOf(socket: tls.TLSSocket, host: string): PresentedCertificate | undefined {
  const certificate = socket.getPeerCertificate();
  if (!certificate.fingerprint256) return undefined;
  const identity = socket.authorized ? tls.checkServerIdentity(host, certificate) : undefined;
  return {
    fingerprint: certificate.fingerprint256,
    subject: Object.entries(certificate.subject ?? {}).map(([k, v]) => `${k}=${v}`).join(', '),
    authorized: socket.authorized && !identity,
    ...(identity || socket.authorizationError ? { reason: identity?.message ?? String(socket.authorizationError) } : {}),
  };
}

/** `ca`: the PEM authorities trusted (the system's if left out). */
export function presentedCertificate(host: string, port: number, connectTimeoutMs: number, ca?: string | string[]): Promise<PresentedCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port, rejectUnauthorized: false, timeout: connectTimeoutMs, ...(ca ? { ca } : {}), ...(net.isIP(host) ? {} : { servername: host }) });
    socket.once('secureConnect', () => {
      const presented = certificateOf(socket, host);
      socket.end();
      if (presented) resolve(presented);
      else reject(new HandshakeFailure(undefined, `${host}:${port} presented no certificate.`));
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new HandshakeFailure('CONNECTION_TIMEOUT', `${host}:${port} did not complete the TLS handshake within ${connectTimeoutMs} ms.`));
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const code = networkErrorCode(error.code);
      reject(new HandshakeFailure(code, code ? `${host}:${port}: ${error.code}.` : `The TLS handshake with ${host}:${port} failed: ${error.message.split('\n')[0]?.slice(0, 200)}`));
    });
  });
}
