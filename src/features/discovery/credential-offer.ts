// Which credentials a connector offers an address, in order: the one that last worked there, then
// those listed on the target, then those whose match pattern covers the address (a broad pattern
// only of a credential that allows it, whatever was stored before the rule or under wider
// settings). Secrets are revealed once per run, in this process or for a remote scanner's chunk
// (only the credentials its addresses may be offered: forChunk).
import net from 'node:net';
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { CredentialKind } from '../credentials/credential-kinds.js';
import { patternCovers } from '../credentials/credential-match.js';
import type { CredentialService, CredentialView, RevealedCredential } from '../credentials/credential-service.js';
import { credentialKindsOf, INVENTORY_CONNECTORS, type InventoryMethod } from './connectors/registry.js';
import type { HostStateStore } from './host-state-store.js';
import type { RunError } from './run-record.js';
import type { TargetRecord } from './target-record.js';

export type CredentialMethod = InventoryMethod;

export interface Candidate {
  id: string;
  name: string;
  kind: CredentialKind;
  /** The patterns it is offered by: a broad one only with allowBroadMatch. */
  matchPatterns: string[];
}

export interface Offer {
  credentials: RevealedCredential[];
  errors: RunError[];
  /** A credential of the method worked at this address before. */
  remembered: boolean;
}

/** What a remote scanner is given of one method for one chunk (api.yaml ScannerChunk.credentials). */
export interface ChunkCredentials {
  method: CredentialMethod;
  listed: string[];
  candidates: Candidate[];
  /** Each candidate's record and secrets apart (api.yaml holds a credential's record as its API shows it), or that it cannot be decrypted. */
  revealed: ({ id: string; credential: CredentialView; secrets: Record<string, string> } | { id: string; unreadable: true })[];
  remembered: { address: string; credentialId: string }[];
}

/** A remote scanner's credentials of a method, from what its chunk brought: the same offers as in the service. */
export function chunkCredentials(given: ChunkCredentials): RunCredentials {
  const secrets = new Map(given.revealed.map((r) => [r.id, r]));
  const remembered = new Map(given.remembered.map((r) => [r.address, r.credentialId]));
  return new RunCredentials(given.method, given.listed, given.candidates, async (id) => {
    const found = secrets.get(id);
    if (!found || !('credential' in found)) throw new Error('unreadable');
    return { ...found.credential, secrets: found.secrets };
  }, async (address) => remembered.get(address));
}

/** The credentials of one run and method: candidates read once, secrets revealed once each. */
export class RunCredentials {
  private readonly revealed = new Map<string, Promise<RevealedCredential | Error>>();
  /** Every credential offered to some address of the run (for its diagnosis: kinds only). */
  readonly offered = new Set<string>();

  /** `reveal`: a credential's secrets; `rememberedAt`: the credential of the method that last worked at an address. */
  constructor(
    private readonly method: CredentialMethod,
    private readonly listed: string[],
    private readonly candidates: Candidate[],
    private readonly revealCredential: (id: string) => Promise<RevealedCredential>,
    private readonly rememberedAt: (address: string) => Promise<string | undefined>,
  ) {}

  /** No credential of the method exists for this run: the method is not tried at all. */
  isEmpty(): boolean {
    return this.candidates.length === 0;
  }

  async offer(address: string, hostname: string | undefined): Promise<Offer> {
    const remembered = await this.rememberedAt(address);
    const byId = new Map(this.candidates.map((c) => [c.id, c]));
    const ordered = [
      ...(remembered && byId.has(remembered) ? [remembered] : []),
      ...this.listed.filter((id) => byId.has(id)),
      ...this.covering(address, hostname).map((c) => c.id),
    ];
    const credentials: RevealedCredential[] = [];
    const errors: RunError[] = [];
    for (const id of new Set(ordered)) {
      this.offered.add(id);
      const result = await this.reveal(id);
      if (result instanceof Error) {
        const name = byId.get(id)?.name ?? id;
        errors.push({ address, method: this.method, stage: 'authenticate', code: 'CREDENTIAL_UNREADABLE', message: `Credential "${name}" could not be decrypted with the configured vault keys.` });
      } else credentials.push(result);
    }
    if (credentials.length === 0 && errors.length === 0) {
      errors.push({ address, method: this.method, stage: 'authenticate', code: 'NO_CREDENTIALS', message: `No ${credentialKindsOf(this.method).join(' or ')} credential is listed on the target or matches ${address}.` });
    }
    return { credentials, errors, remembered: remembered !== undefined };
  }

  private covering(address: string, hostname: string | undefined): Candidate[] {
    return this.candidates.filter((c) => c.matchPatterns.some((p) => patternCovers(p, address, hostname)));
  }

  /**
   * What a remote scanner needs of this method for the addresses of a chunk (host names as the
   * chunk names them): the listed candidates and those whose pattern covers one of the addresses,
   * each revealed (or marked unreadable), and the credential remembered at each address.
   */
  async forChunk(addresses: string[], remembered: Map<string, string>): Promise<ChunkCredentials> {
    const ids = this.chunkCandidates(addresses);
    const candidates = this.candidates.filter((c) => ids.has(c.id));
    const revealed = await Promise.all(candidates.map(async (c) => {
      const result = await this.reveal(c.id);
      if (result instanceof Error) return { id: c.id, unreadable: true as const };
      const { secrets, ...credential } = result;
      return { id: c.id, credential, secrets };
    }));
    return { method: this.method, listed: this.listed.filter((id) => ids.has(id)), candidates, revealed, remembered: [...remembered].filter(([, id]) => ids.has(id)).map(([address, credentialId]) => ({ address, credentialId })) };
  }

  /** The ids of the candidates a chunk's addresses may be offered: those listed, and those whose pattern covers one of them. */
  private chunkCandidates(addresses: string[]): Set<string> {
    const ids = new Set(this.listed.filter((id) => this.candidates.some((c) => c.id === id)));
    for (const address of addresses) {
      const ip = net.isIP(address) ? address : undefined;
      for (const c of this.covering(ip ?? '', ip ? undefined : address)) ids.add(c.id);
    }
    return ids;
  }

  private reveal(id: string): Promise<RevealedCredential | Error> {
    let pending = this.revealed.get(id);
    if (!pending) {
      pending = this.revealCredential(id).catch((error: unknown) => (error instanceof Error ? error : new Error('unreadable')));
      this.revealed.set(id, pending);
    }
    return pending;
  }
}

export class CredentialOffer {
  constructor(
    private readonly db: Database,
    private readonly vault: CredentialService,
    private readonly hostState: HostStateStore,
  ) {}

  /** The credentials of each inventory method the target names, and an error for each that has none and needs one. */
  async forTarget(target: Pick<TargetRecord, 'methods' | 'credentialIds'>): Promise<{ credentials: Map<InventoryMethod, RunCredentials>; runErrors: RunError[] }> {
    const credentials = new Map<InventoryMethod, RunCredentials>();
    for (const { method } of INVENTORY_CONNECTORS) if (target.methods.includes(method)) credentials.set(method, await this.forRun(method, target.credentialIds));
    // A method whose credentials are optional (DNS) is tried without one.
    const required = new Set<string>(INVENTORY_CONNECTORS.filter((c) => !c.credentialsOptional).map((c) => c.method));
    const runErrors = [...credentials].flatMap(([method, c]): RunError[] =>
      c.isEmpty() && required.has(method) ? [{ address: null, method, stage: 'authenticate', code: 'NO_CREDENTIALS', message: `No ${method} credential is listed on the target or has a match pattern; ${method} was not tried.` }] : [],
    );
    for (const method of credentials.keys()) if (credentials.get(method)?.isEmpty() && required.has(method)) credentials.delete(method);
    return { credentials, runErrors };
  }

  /** The candidates of a run: the target's listed credentials and every one with a match pattern, of the method's kinds. */
  async forRun(method: CredentialMethod, listed: string[]): Promise<RunCredentials> {
    const rows: (Candidate & { allowBroadMatch: boolean })[] = await this.db('credentials')
      .select('id', 'name', 'kind', 'match_patterns as matchPatterns', 'allow_broad_match as allowBroadMatch')
      .whereIn('kind', credentialKindsOf(method))
      .where((w) => w.whereIn('id', listed).orWhereRaw('cardinality(match_patterns) > 0'))
      .orderBy('name');
    const candidates = rows.map(({ allowBroadMatch, ...c }) => ({ ...c, matchPatterns: this.vault.patternsOffered(c.matchPatterns, allowBroadMatch) }));
    return new RunCredentials(method, listed, candidates, (id) => this.vault.reveal(id), (address) => this.hostState.rememberedCredential(address, method));
  }
}
