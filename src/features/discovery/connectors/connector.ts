// What a discovery connector declares and does. The registry (registry.ts) lists them; every list
// of methods (targets, credential offer, runner, loader, GET /discovery/methods, the web UI's
// forms, api.yaml enums) and of scan error codes is derived from it. This module imports nothing
// that imports the registry, so that the connectors, which the registry imports, import no cycle.
import type { z } from 'zod';
import type { AppConfig } from '../../../platform/config.js';
import type { CredentialKind } from '../../credentials/credential-kinds.js';
import type { RevealedCredential } from '../../credentials/credential-service.js';
import type { ConnectorResult, ObservedScope } from '../host-observation.js';
import type { Pins } from '../host-state-store.js';
import type { ScanErrorDefinition } from '../scan-error.js';
import type { SharedErrorCode } from '../shared-scan-errors.js';

/** What a connector may use besides its arguments: the settings and the pins of hosts' keys (the store's, or a remote scanner's through the API). */
export interface ConnectorEnvironment {
  config: AppConfig;
  hostState: Pins;
}

/** One address to inventory, with everything the runner settled for it. */
export interface CollectRequest {
  address: string;
  /** The name the address was given as, or found by the sweep. */
  hostname?: string;
  credentials: RevealedCredential[];
  /** The target's port for this method (its default if the target names none). */
  port: number;
  /** The target's settings for this method, as validated by the connector's schema ({} if none). */
  settings: Record<string, unknown>;
  /** The host's deadline (epoch ms). */
  deadline: number;
  /**
   * Whether anything answers at another address, by the run's own sweep (its ports, time-out, ICMP
   * echo and the service's own endpoints left out): for a connector that finds addresses (DNS).
   */
  probe(address: string): Promise<boolean>;
  /** Aborted when the run is cancelled: a connector that runs a child process (nmap) kills it. */
  signal?: AbortSignal;
}

/** Scan error codes with what each means and the diagnosis rule that explains a failed run it leads. */
export type ScanErrorTable = Readonly<Record<string, ScanErrorDefinition>>;

interface ConnectorBase<Errors extends ScanErrorTable> {
  /** The method name, as targets, runs and error records name it. */
  method: string;
  /** In a target's methods when it names none. */
  enabledByDefault: boolean;
  /** Rank of its facts when sources disagree (higher wins); its fact source is the method in lower case. */
  factRank: number;
  /** One line for api.yaml and docs/discovery.md. */
  description: string;
  /** Its own codes, besides the shared ones (shared-scan-errors.ts); a code keeps its meaning once released. */
  errors: Errors;
}

/** The first stage: whether an address is there and which ports answer. */
export interface ProbeConnector<Errors extends ScanErrorTable = ScanErrorTable> extends ConnectorBase<Errors> {
  stage: 'probe';
}

/** A method that logs in somewhere and reads an inventory. */
export interface InventoryConnector<Errors extends ScanErrorTable = ScanErrorTable> extends ConnectorBase<Errors> {
  stage: 'inventory';
  credentialKinds: readonly CredentialKind[];
  /** Tried without a credential where none of its kinds is offered (DNS: a zone transfer needs a TSIG key only where the server asks for one). */
  credentialsOptional?: boolean;
  /** The port a target uses when it names none; none for a method that finds the ports itself (FINGERPRINT). */
  defaultPort?: number;
  /** The target's settings for this method (strict: an unknown field is a 400). */
  settings?: z.ZodType<Record<string, unknown>>;
  /**
   * When it is tried at an address: 'port-answered': where the sweep found its port open (its
   * port is then always swept), or where it worked before or the address was named on its own;
   * 'always': at every address (a UDP protocol that the sweep cannot see).
   */
  triedWhere: 'port-answered' | 'always';
  /** Codes that only mean "this address does not speak the method": no error where it was not expected. */
  silentCodes: readonly (SharedErrorCode | (keyof Errors & string))[];
  /** The addresses it is tried at per run, at most, given the target's settings for it (unbounded where left out); the others get HOST_LIMIT_REACHED. */
  maxHostsPerRun?(settings: Record<string, unknown>): number;
  /** The scopes whose complete read may retire what is no longer seen. */
  retires: readonly (ObservedScope | 'estate')[];
  collect(request: CollectRequest, environment: ConnectorEnvironment): Promise<ConnectorResult>;
}

export type Connector = ProbeConnector | InventoryConnector;
