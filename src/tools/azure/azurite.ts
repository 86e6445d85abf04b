// Azure Blob Storage for the tests, real: Microsoft's emulator azurite (its blob service alone),
// started as a child process on loopback. The SDK sends bearer tokens over HTTPS only, and azurite
// takes them only with `--oauth basic` and a certificate (its README, "OAuth Configuration"): it
// then checks a token's issuer (https://sts.windows.net/...), audience (https://storage.azure.com)
// and lifetime, not its signature, as the Azure double's token endpoint issues them. Its accounts
// are named by AZURITE_ACCOUNTS (name:key, the shared key a test creates its containers with); its
// data is kept in a directory, so that a restart on the same port finds it. With the IP address as
// host, an account's blob endpoint is path-style: https://127.0.0.1:<port>/<account>/.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { BlobServiceClient, newPipeline, StorageSharedKeyCredential, type PublicAccessType } from '@azure/storage-blob';
import { certificate } from '../kubernetes/kubernetes-double.js';

const MAIN = createRequire(import.meta.url).resolve('azurite/dist/src/blob/main.js');
const LISTENING = /successfully listens on https:\/\/127\.0\.0\.1:(\d+)/;

export class Azurite {
  port = 0;
  /** The PEM certificate it serves (for settings.AZURE.caCertificate). */
  certificate = '';
  private child?: ChildProcess;
  private agent?: https.Agent;
  private readonly directory = mkdtempSync(path.join(os.tmpdir(), 'azurite-'));
  /** Each account's shared key (base64), by name. */
  private readonly keys: Record<string, string>;

  constructor(accounts: string[]) {
    this.keys = Object.fromEntries(accounts.map((name) => [name, Buffer.from(`${name}-azurite-test-key-0123456789`).toString('base64')]));
  }

  /** Starts it (again, on the same port and data after stop). */
  async start(): Promise<this> {
    if (!this.certificate) {
      const { key, cert } = certificate();
      writeFileSync(path.join(this.directory, 'key.pem'), key, { mode: 0o600 });
      writeFileSync(path.join(this.directory, 'cert.pem'), cert);
      this.certificate = cert;
    }
    const child = spawn(process.execPath, [MAIN, '--blobHost', '127.0.0.1', '--blobPort', String(this.port), '--oauth', 'basic',
      '--cert', path.join(this.directory, 'cert.pem'), '--key', path.join(this.directory, 'key.pem'),
      '--location', path.join(this.directory, 'data'), '--silent', '--disableTelemetry', '--skipApiVersionCheck'], {
      env: { ...process.env, AZURITE_ACCOUNTS: Object.entries(this.keys).map(([name, key]) => `${name}:${key}`).join(';') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let output = '';
    this.port = await new Promise<number>((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const port = LISTENING.exec(output)?.[1];
        if (port) resolve(Number(port));
      };
      child.stdout?.on('data', seen);
      child.stderr?.on('data', seen);
      child.once('exit', (code) => reject(new Error(`azurite ended (${code}) before it listened: ${output.slice(-500)}`)));
    });
    return this;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  /** Stops it and removes its data. */
  async remove(): Promise<void> {
    this.agent?.destroy();
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }

  /** An account's blob endpoint, as Resource Manager's primaryEndpoints.blob names one. */
  endpoint(account: string): string {
    return `https://127.0.0.1:${this.port}/${account}/`;
  }

  /** A client of an account with its shared key (how a test puts containers there), trusting its certificate. */
  private client(account: string): BlobServiceClient {
    const pipeline = newPipeline(new StorageSharedKeyCredential(account, this.keys[account] ?? ''));
    const agent = (this.agent ??= new https.Agent({ ca: this.certificate }));
    pipeline.factories.push({ create: (next) => ({ sendRequest: (request) => next.sendRequest(Object.assign(request, { agent })) }) });
    return new BlobServiceClient(this.endpoint(account), pipeline);
  }

  async createContainer(account: string, name: string, access?: PublicAccessType): Promise<void> {
    await this.client(account).createContainer(name, access ? { access } : {});
  }

  async deleteContainer(account: string, name: string): Promise<void> {
    await this.client(account).deleteContainer(name);
  }
}
