// "Test this credential against one address": the discovery method of the credential's kind run once
// at one address as a scan runs it (its connector's collect, this credential offered alone, the
// method's default port unless one is given), and only the outcome and the error codes answered:
// never what it read, never the secret. Audited as credential.test.
import net from 'node:net';
import { BadRequestError } from '../../platform/errors.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import type { CredentialService } from '../credentials/credential-service.js';
import type { ConnectorEnvironment } from '../discovery/connectors/connector.js';
import { INVENTORY_CONNECTORS } from '../discovery/connectors/registry.js';

export interface CredentialCheckRequest {
  address: string;
  port?: number;
}

export interface CredentialCheckOutcome {
  method: string;
  address: string;
  port: number;
  outcome: 'SUCCEEDED' | 'FAILED';
  errors: { stage: string; code: string; message: string }[];
}

const bad = (field: string, message: string) => new BadRequestError(message, [{ path: `body.${field}`, message }]);

export class CredentialCheck {
  constructor(
    private readonly credentials: CredentialService,
    private readonly environment: ConnectorEnvironment,
    private readonly audit: AuditLog,
  ) {}

  async test(actor: Actor, id: string, request: CredentialCheckRequest): Promise<CredentialCheckOutcome> {
    const credential = await this.credentials.reveal(id);
    if (net.isIP(request.address) === 0) throw bad('address', 'address is one IPv4 or IPv6 address.');
    const connector = INVENTORY_CONNECTORS.find((c) => c.credentialKinds.includes(credential.kind));
    if (!connector) throw bad('credentialId', `No discovery method uses ${credential.kind} credentials.`);
    const parsed = connector.settings?.safeParse({});
    if (parsed && !parsed.success) throw bad('credentialId', `${connector.method} needs a target's settings to run: test it from a target.`);
    const port = request.port ?? connector.defaultPort;
    // Every method that takes a credential has a port (FINGERPRINT, which has none, takes none).
    if (port === undefined) throw bad('port', `${connector.method} has no default port: name one.`);
    const result = await connector.collect(
      { address: request.address, credentials: [credential], port, settings: parsed?.data ?? {}, deadline: Date.now() + this.environment.config.discoveryHostTimeoutMs, probe: () => Promise.resolve(false) },
      this.environment,
    );
    const outcome = result.credentialId === id ? 'SUCCEEDED' : 'FAILED';
    const errors = result.errors.map(({ stage, code, message }) => ({ stage, code, message }));
    await this.audit.record(actor, {
      action: 'credential.test', targetKind: 'CREDENTIAL', targetId: id,
      details: { name: credential.name, method: connector.method, address: request.address, port, outcome, codes: errors.map((e) => e.code) },
    });
    return { method: connector.method, address: request.address, port, outcome, errors };
  }
}
