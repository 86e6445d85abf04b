// The SSH connector: log in with the credentials offered (key or password), with the host key
// pinned at first contact and a changed key refused before any credential is sent; run the fixed inventory commands one at a
// time, each bounded in bytes and time; parse what they print into a host observation. A scope
// whose command failed is left out of `complete`, so that its old data is kept.
import { createHash } from 'node:crypto';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import type { RevealedCredential } from '../../../credentials/credential-service.js';
import { recogniseApplications } from '../../application-catalogue.js';
import { emptyObservation, type ConnectorResult, type HostObservation, type ObservedScope, type ScanMethod } from '../../host-observation.js';
import type { Pins } from '../../host-state-store.js';
import { networkErrorCode } from '../../shared-scan-errors.js';
import type { RunError } from '../../run-record.js';
import type { SshErrorCode } from './ssh-errors.js';
import { LINUX_COMMANDS, type LinuxCommand } from './linux-commands.js';
import {
  buildServices, lldpUnreadable, parseEstablished, parseFacts, parseInterfaces, parseListening, parseLldp,
  parsePackages, parseProcesses, parseSystemd,
} from './linux-parsers.js';

export interface SshOptions {
  port: number;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  outputMaxBytes: number;
  /** The host's deadline (epoch ms): past it, no further command starts. */
  deadline: number;
}

/** An SSH host key: its type and SHA256 fingerprint. */
export interface HostKey {
  keyType: string;
  fingerprint: string;
}

export interface CommandOutput {
  stdout: string;
  error?: { code: SshErrorCode; message: string };
}

class ConnectFailure extends Error {
  constructor(readonly code: SshErrorCode, message: string, readonly final: boolean) {
    super(message);
  }
}

/** Type and SHA256 fingerprint (as OpenSSH prints it) of a host key blob. */
export function describeHostKey(blob: Buffer): HostKey {
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const keyType = blob.subarray(4, 4 + Math.min(length, 64)).toString('latin1');
  return { keyType, fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}` };
}

function connectOnce(address: string, credential: RevealedCredential, options: SshOptions, keys: Pins): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let keyChanged: HostKey | undefined;
    const username = String(credential.settings.username);
    const auth: Partial<ConnectConfig> = credential.kind === 'SSH_KEY'
      ? { privateKey: credential.secrets.privateKey, ...(credential.secrets.passphrase ? { passphrase: credential.secrets.passphrase } : {}) }
      : { password: credential.secrets.password };
    client.once('ready', () => resolve(client));
    client.once('error', (error: Error & { code?: string; level?: string }) => {
      client.end();
      if (keyChanged) {
        reject(new ConnectFailure('HOST_KEY_CHANGED', `The host key of ${address}:${options.port} is now ${keyChanged.keyType} ${keyChanged.fingerprint}, not the one pinned at first contact; no credential was sent. If the host was rebuilt, accept the new key (POST /api/v1/discovery/pins/accept).`, true));
      } else if (error.level === 'client-authentication') {
        reject(new ConnectFailure('SSH_AUTH_FAILED', `Credential "${credential.name}" (user ${username}) was refused.`, false));
      } else if (networkErrorCode(error.code)) {
        reject(new ConnectFailure(networkErrorCode(error.code) as SshErrorCode, `${address}:${options.port}: ${error.code}.`, true));
      } else if (error.level === 'client-timeout' || /timed out/i.test(error.message)) {
        reject(new ConnectFailure('CONNECTION_TIMEOUT', `${address}:${options.port} did not complete the SSH handshake within ${options.connectTimeoutMs} ms.`, true));
      } else {
        reject(new ConnectFailure('SSH_PROTOCOL_ERROR', `The SSH handshake with ${address}:${options.port} failed: ${error.message.split('\n')[0]?.slice(0, 200)}`, true));
      }
    });
    client.connect({
      host: address,
      port: options.port,
      username,
      ...auth,
      readyTimeout: options.connectTimeoutMs,
      tryKeyboard: false,
      hostVerifier: (blob: Buffer, verify: (valid: boolean) => void) => {
        const seen = describeHostKey(blob);
        // verify(false) ends the handshake before authentication: a changed host gets no secret.
        keys.pinOrCompare('SSH_HOST_KEY', address, options.port, { fingerprint: seen.fingerprint, detail: seen.keyType }).then((pinned) => {
          if (pinned) keyChanged = seen;
          verify(!pinned);
        }, () => verify(false));
      },
    } as ConnectConfig);
  });
}

/** Runs one command (`name` says which in messages), reading at most outputMaxBytes within commandTimeoutMs (or the host's deadline). */
export function runCommand(client: Client, name: string, command: string, options: SshOptions): Promise<CommandOutput> {
  return new Promise((resolve) => {
    const limit = Math.min(options.commandTimeoutMs, options.deadline - Date.now());
    if (limit <= 0) {
      resolve({ stdout: '', error: { code: 'HOST_TIMEOUT', message: `The per-host time-out ended before "${name}" could run.` } });
      return;
    }
    client.exec(command, (error, channel: ClientChannel) => {
      if (error) {
        resolve({ stdout: '', error: { code: 'COMMAND_FAILED', message: `"${name}" could not start: ${error.message.slice(0, 200)}` } });
        return;
      }
      const out: Buffer[] = [];
      let bytes = 0;
      let stderr = '';
      let ended = false;
      const finish = (result: CommandOutput) => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        channel.close();
        resolve(result);
      };
      const timer = setTimeout(() => finish({ stdout: '', error: { code: 'COMMAND_TIMEOUT', message: `"${name}" did not finish within ${limit} ms.` } }), limit);
      channel.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > options.outputMaxBytes) finish({ stdout: '', error: { code: 'OUTPUT_LIMIT_EXCEEDED', message: `"${name}" printed more than ${options.outputMaxBytes} bytes; its data is left incomplete.` } });
        else out.push(chunk);
      });
      channel.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 2000) stderr += chunk.toString('utf8');
      });
      channel.on('close', (code: number | null) => {
        const stdout = Buffer.concat(out).toString('utf8');
        if (code === 0 || code === null) finish({ stdout });
        else if (/permission denied|operation not permitted|access denied/i.test(stderr)) {
          finish({ stdout, error: { code: 'COMMAND_PERMISSION_DENIED', message: `"${name}" was refused for lack of permission (exit ${code}).` } });
        } else finish({ stdout, error: { code: 'COMMAND_FAILED', message: `"${name}" exited with ${code}${code === 127 ? ' (not installed)' : ''}.` } });
      });
    });
  });
}

/**
 * Logs in with the first credential that works; host key, network and protocol failures end the
 * attempt at once. `method` names the connector in the errors (every connector that works over SSH logs in here).
 */
export async function login(method: ScanMethod, address: string, credentials: RevealedCredential[], options: SshOptions, keys: Pins): Promise<{ client: Client; credential: RevealedCredential } | RunError[]> {
  const refused: string[] = [];
  for (const credential of credentials) {
    try {
      return { client: await connectOnce(address, credential, options, keys), credential };
    } catch (error) {
      const failure = error instanceof ConnectFailure ? error : new ConnectFailure('SSH_PROTOCOL_ERROR', 'The SSH connection failed.', true);
      if (failure.final) return [{ address, method, stage: failure.code === 'HOST_KEY_CHANGED' ? 'verify-host-key' : 'connect', code: failure.code, message: failure.message }];
      refused.push(failure.message);
    }
  }
  return [{ address, method, stage: 'authenticate', code: 'SSH_AUTH_FAILED', message: `Every credential offered was refused: ${refused.join(' ')}`.slice(0, 1000) }];
}

export async function collectSsh(address: string, credentials: RevealedCredential[], options: SshOptions, keys: Pins): Promise<ConnectorResult> {
  const session = await login('SSH', address, credentials, options, keys);
  if (Array.isArray(session)) return { errors: session };
  const { client, credential } = session;
  const errors: RunError[] = [];
  const outputs = new Map<LinuxCommand, string | undefined>();
  try {
    for (const name of Object.keys(LINUX_COMMANDS) as LinuxCommand[]) {
      const result = await runCommand(client, name, LINUX_COMMANDS[name], options);
      if (result.error) errors.push({ address, method: 'SSH', stage: `collect:${name}`, code: result.error.code, message: result.error.message });
      outputs.set(name, result.error ? undefined : result.stdout);
    }
  } finally {
    client.end();
  }
  const observation = normalise(address, outputs);
  const unreadable = lldpUnreadable(outputs.get('lldp') ?? '');
  if (unreadable) errors.push({ address, method: 'SSH', stage: 'collect:lldp', code: 'LLDP_UNREADABLE', message: unreadable });
  return { observation, errors, credentialId: credential.id };
}

/** The observation from the commands' outputs; a scope is complete only when all its commands answered. */
function normalise(address: string, outputs: Map<LinuxCommand, string | undefined>): HostObservation {
  // parseFacts leaves out what the host did not tell: its identity fields spread as they are.
  const { assetType, ...identity } = parseFacts(outputs.get('facts') ?? '');
  const observation: HostObservation = { ...emptyObservation(address, 'SSH', assetType), ...identity };
  const complete = (scope: ObservedScope, ...commands: LinuxCommand[]) => {
    if (commands.every((c) => outputs.get(c) !== undefined)) observation.complete.add(scope);
  };
  complete('facts', 'facts');
  const packages = parsePackages(outputs.get('packages') ?? '');
  observation.software = packages ?? [];
  if (packages) complete('software', 'packages');

  const psOutput = outputs.get('processes');
  const processes = psOutput !== undefined ? parseProcesses(psOutput, outputs.get('processNames') ?? '') : [];
  const listening = parseListening(outputs.get('listening') ?? '');
  const { applications, processApplication } = recogniseApplications(observation.software, processes, listening);
  observation.applications = applications;
  observation.processes = processes.map(({ unit: _unit, ...p }) => ({
    ...p,
    sourceConnector: 'SSH',
    ...(processApplication.has(p.pid) ? { application: processApplication.get(p.pid) } : {}),
  }));
  complete('processes', 'processes', 'processNames');

  observation.services = buildServices(parseSystemd(outputs.get('systemd') ?? ''), processes, listening);
  complete('services', 'systemd', 'processes', 'listening');

  const interfaces = parseInterfaces(outputs.get('interfaces') ?? '');
  observation.interfaces = interfaces ?? [];
  if (interfaces) complete('interfaces', 'interfaces');
  observation.macAddresses = [...new Set(observation.interfaces.flatMap((i) => (i.macAddress ? [i.macAddress] : [])))];
  observation.ipAddresses = [...new Set([address, ...observation.interfaces.flatMap((i) => i.ipAddresses ?? [])])];

  const neighbors = parseLldp(outputs.get('lldp') ?? '');
  observation.neighbors = neighbors ?? [];
  if (neighbors) complete('neighbors', 'lldp');

  observation.connections = parseEstablished(outputs.get('connections') ?? '');
  complete('connections', 'connections');
  return observation;
}

/** What one command run over SSH gave: its output (if it ran), the errors, and the credential that got in. */
export interface SshCommandResult {
  output?: string;
  errors: RunError[];
  credentialId?: string;
}

/** Logs in and runs one command: the connectors that read one program over SSH (libvirt, containers) go through here. */
export async function runOverSsh(method: ScanMethod, address: string, credentials: RevealedCredential[], name: string, command: string, options: SshOptions, keys: Pins): Promise<SshCommandResult> {
  const session = await login(method, address, credentials, options, keys);
  if (Array.isArray(session)) return { errors: session };
  try {
    const result = await runCommand(session.client, name, command, options);
    const errors: RunError[] = result.error ? [{ address, method, stage: `collect:${name}`, code: result.error.code, message: result.error.message }] : [];
    return { output: result.stdout, errors, credentialId: session.credential.id };
  } finally {
    session.client.end();
  }
}
