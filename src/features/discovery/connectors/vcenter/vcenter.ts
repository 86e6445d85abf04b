// VCENTER: the vSphere Web Services API (SOAP, vim25) of a vCenter at the address: certificate
// checked and pinned, a session with the first HTTP_BASIC credential accepted, the inventory read
// through the PropertyCollector in pages, then mapped to an estate (vcenter-estate.ts). A read cut
// short (an error, the host's time-out, properties the server could not read) still loads what was
// read, but retires nothing.
import { z } from 'zod';
import type { RevealedCredential } from '../../../credentials/credential-service.js';
import type { ConnectorResult } from '../../host-observation.js';
import type { Pins } from '../../host-state-store.js';
import type { RunError } from '../../run-record.js';
import type { CollectRequest, ConnectorEnvironment, InventoryConnector } from '../connector.js';
import { VCENTER_ERRORS } from './vcenter-errors.js';
import { PROPERTY_SPECS, toEstate, type AboutInfo } from './vcenter-estate.js';
import { asRef, element, moRef, text, Vim25Failure, Vim25Session, type ObjectContent } from './vim25-session.js';

const settings = z.strictObject({
  verifyCertificate: z.boolean().optional(),
  caCertificate: z.string().max(20_000).optional(),
});

const SERVICE_INSTANCE = { type: 'ServiceInstance', value: 'ServiceInstance' };
// Failures that no other credential can mend.
const FINAL = new Set(['CONNECTION_REFUSED', 'CONNECTION_TIMEOUT', 'HOST_UNREACHABLE', 'DNS_FAILURE', 'CERTIFICATE_UNTRUSTED', 'CERTIFICATE_CHANGED', 'NOT_A_VCENTER', 'VCENTER_PROTOCOL_ERROR', 'HOST_TIMEOUT']);

export interface VcenterReadOptions {
  port: number;
  hostname?: string;
  verifyCertificate: boolean;
  caCertificate?: string;
  connectTimeoutMs: number;
  pageSize: number;
  deadline: number;
}

/** What a read gave, with its cost (for the benchmark): SOAP calls and PropertyCollector pages. */
export interface VcenterRead extends ConnectorResult {
  calls: number;
  pages: number;
}

/** The SDK path: the credential's baseUrl path when it names one, else /sdk. */
function sdkPath(credential: RevealedCredential): string {
  const base = typeof credential.settings.baseUrl === 'string' ? new URL(credential.settings.baseUrl).pathname : '/';
  return base === '/' ? '/sdk' : base;
}

export async function readVcenter(address: string, credentials: RevealedCredential[], options: VcenterReadOptions, pins: Pins): Promise<VcenterRead> {
  const scope = `VCENTER:${address}:${options.port}`;
  const record = (stage: string, code: RunError['code'], message: string): RunError => ({ address, method: 'VCENTER', stage, code, message });
  const refused: string[] = [];
  let calls = 0;
  let pages = 0;
  for (const credential of credentials) {
    const session = new Vim25Session({ host: address, port: options.port, path: sdkPath(credential), verifyCertificate: options.verifyCertificate, caCertificate: options.caCertificate, connectTimeoutMs: options.connectTimeoutMs, deadline: options.deadline }, pins);
    let stage = 'verify-certificate';
    try {
      await session.verify();
      stage = 'connect';
      const content = (await session.call('RetrieveServiceContent', moRef('_this', SERVICE_INSTANCE))).returnval as Record<string, unknown> | undefined;
      const ref = (name: string) => asRef(content?.[name]);
      const [rootFolder, propertyCollector, viewManager, sessionManager] = [ref('rootFolder'), ref('propertyCollector'), ref('viewManager'), ref('sessionManager')];
      if (!rootFolder || !propertyCollector || !viewManager || !sessionManager) throw new Vim25Failure('NOT_A_VCENTER', `${address}:${options.port} answered without the vCenter's inventory services (root folder, property collector, view manager).`);
      const aboutXml = (content?.about ?? {}) as Record<string, unknown>;
      const about: AboutInfo = Object.fromEntries(['name', 'fullName', 'vendor', 'version', 'build', 'apiVersion', 'instanceUuid'].map((k) => [k, text(aboutXml[k])]));
      stage = 'authenticate';
      await session.call('Login', `${moRef('_this', sessionManager)}${element('userName', String(credential.settings.username))}${element('password', credential.secrets.password ?? '')}`);
      stage = 'collect';
      const objects: ObjectContent[] = [];
      const errors: RunError[] = [];
      try {
        await session.retrieveAll(rootFolder, propertyCollector, viewManager, PROPERTY_SPECS, options.pageSize, (page) => objects.push(...page));
      } catch (error) {
        if (!(error instanceof Vim25Failure)) throw error;
        errors.push(record('collect', error.code, `${error.message} The ${objects.length} objects read are kept; nothing is retired.`));
      }
      const missing = objects.filter((o) => o.missing.length);
      if (missing.length) {
        errors.push(record('collect', 'VCENTER_READ_INCOMPLETE', `The vCenter could not read ${missing.length} objects' properties (for example ${missing[0]?.obj.value}: ${missing[0]?.missing.slice(0, 3).join(', ')}); nothing is retired.`));
      }
      await session.logout(sessionManager);
      calls += session.calls;
      pages = session.pages;
      const estate = toEstate(address, options.hostname, about, objects, scope, errors.length === 0);
      return { estate, errors, credentialId: credential.id, calls, pages };
    } catch (error) {
      session.close();
      calls += session.calls;
      const failure = error instanceof Vim25Failure ? error : new Vim25Failure('VCENTER_PROTOCOL_ERROR', `${stage}: ${error instanceof Error ? error.message.split('\n')[0]?.slice(0, 200) : 'unknown error'}`);
      if (failure.code === 'VCENTER_AUTH_FAILED') {
        refused.push(`Credential "${credential.name}" (user ${String(credential.settings.username)}) was refused.`);
        continue;
      }
      if (FINAL.has(failure.code) || stage !== 'authenticate') return { errors: [record(stage, failure.code, failure.message)], calls, pages };
      refused.push(failure.message);
    }
  }
  return { errors: [record('authenticate', 'VCENTER_AUTH_FAILED', `Every credential offered was refused: ${refused.join(' ')}`.slice(0, 1000))], calls, pages };
}

export const vcenterConnector = {
  method: 'VCENTER',
  stage: 'inventory',
  enabledByDefault: false,
  factRank: 45,
  description: "A vCenter's clusters, hypervisors, VMs, datastores, switches, port groups and networks over the vSphere Web Services API (vim25 SOAP).",
  credentialKinds: ['HTTP_BASIC'],
  defaultPort: 443,
  settings,
  errors: VCENTER_ERRORS,
  triedWhere: 'port-answered',
  silentCodes: ['CONNECTION_REFUSED', 'NOT_A_VCENTER'],
  retires: ['estate'],
  collect: async ({ address, hostname, credentials, port, settings: targetSettings, deadline }: CollectRequest, { config, hostState }: ConnectorEnvironment) => {
    const own = settings.parse(targetSettings);
    const { estate, errors, credentialId } = await readVcenter(address, credentials, {
      port,
      ...(hostname ? { hostname } : {}),
      verifyCertificate: own.verifyCertificate ?? true,
      ...(own.caCertificate ? { caCertificate: own.caCertificate } : {}),
      connectTimeoutMs: config.discoveryConnectTimeoutMs,
      pageSize: config.discoveryVcenterPageSize,
      deadline,
    }, hostState);
    return { ...(estate ? { estate } : {}), errors, ...(credentialId ? { credentialId } : {}) };
  },
} as const satisfies InventoryConnector<typeof VCENTER_ERRORS>;
