// The pinned SSH host keys and TLS certificates (host-state-store.ts): an administrator accepts the
// key or certificate a host presented instead of its pin, by its fingerprint, so that exactly the
// one compared with the host's owner is trusted, never whatever answers next. Audited.
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import type { HostStateStore, Pin, PinKind, PinRecord } from './host-state-store.js';

export interface PinAcceptance {
  kind: PinKind;
  address: string;
  port: number;
  fingerprint: string;
}

export type PinView = Omit<PinRecord, 'pinnedAt' | 'lastSeenAt' | 'presented'> & {
  pinnedAt: string;
  lastSeenAt: string;
  presented: (Pin & { at: string }) | null;
};

const WHAT: Record<PinKind, string> = { SSH_HOST_KEY: 'SSH host key', TLS_CERTIFICATE: 'TLS certificate' };

function toPinView({ pinnedAt, lastSeenAt, presented, ...pin }: PinRecord): PinView {
  return { ...pin, pinnedAt: pinnedAt.toISOString(), lastSeenAt: lastSeenAt.toISOString(), presented: presented && { ...presented, at: presented.at.toISOString() } };
}

export class PinService {
  constructor(
    private readonly pins: HostStateStore,
    private readonly audit: AuditLog,
  ) {}

  async accept(actor: Actor, { kind, address, port, fingerprint }: PinAcceptance): Promise<PinView> {
    const where = `${address}:${port}`;
    const current = await this.pins.pin(kind, address, port);
    if (!current) throw new NotFoundError(`No ${WHAT[kind]} is pinned for ${where}.`);
    if (current.presented?.fingerprint !== fingerprint) {
      throw new ConflictError(current.presented
        ? `The ${WHAT[kind]} ${where} presented last is ${current.presented.fingerprint}, not ${fingerprint}: nothing was accepted.`
        : `${where} has presented no ${WHAT[kind]} but its pinned one (${current.fingerprint}): nothing to accept.`);
    }
    const accepted = await this.audit.write(actor, (trx) => this.pins.acceptPresented(kind, address, port, fingerprint, trx), (pin) => pin && {
      action: 'pin.accept', targetKind: kind, details: { kind, address, port, from: current.fingerprint, to: fingerprint },
    });
    // Another administrator accepted it, or the host presented yet another one, in between.
    if (!accepted) throw new ConflictError(`The ${WHAT[kind]} of ${where} changed while it was being accepted: nothing was accepted.`);
    return toPinView(accepted);
  }
}
