// Which credentials a connector offers an address, in order: the one that last worked there, then
// those listed on the target, then those whose match pattern covers the address (a broad pattern
// only of a credential that allows it, whatever was stored before the rule or under wider
// settings). Secrets are revealed once per run and only in this process.
import type { Database } from '../../platform/postgres/postgres-client.js';
import type { CredentialKind } from '../credentials/credential-kinds.js';
import { patternCovers } from '../credentials/credential-match.js';
import type { CredentialService, RevealedCredential } from '../credentials/credential-service.js';
import { credentialKindsOf, type InventoryMethod } from './connectors/registry.js';
import type { HostStateStore } from './host-state-store.js';
import type { RunError } from './run-record.js';

export type CredentialMethod = InventoryMethod;

interface Candidate {
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

/** The credentials of one run and method: candidates read once, secrets revealed once each. */
export class RunCredentials {
  private readonly revealed = new Map<string, Promise<RevealedCredential | Error>>();
  /** Every credential offered to some address of the run (for its diagnosis: kinds only). */
  readonly offered = new Set<string>();

  constructor(
    private readonly method: CredentialMethod,
    private readonly listed: string[],
    private readonly candidates: Candidate[],
    private readonly vault: CredentialService,
    private readonly hostState: HostStateStore,
  ) {}

  /** No credential of the method exists for this run: the method is not tried at all. */
  isEmpty(): boolean {
    return this.candidates.length === 0;
  }

  async offer(address: string, hostname: string | undefined): Promise<Offer> {
    const remembered = await this.hostState.rememberedCredential(address, this.method);
    const byId = new Map(this.candidates.map((c) => [c.id, c]));
    const ordered = [
      ...(remembered && byId.has(remembered) ? [remembered] : []),
      ...this.listed.filter((id) => byId.has(id)),
      ...this.candidates.filter((c) => c.matchPatterns.some((p) => patternCovers(p, address, hostname))).map((c) => c.id),
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

  private reveal(id: string): Promise<RevealedCredential | Error> {
    let pending = this.revealed.get(id);
    if (!pending) {
      pending = this.vault.reveal(id).catch((error: unknown) => (error instanceof Error ? error : new Error('unreadable')));
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

  /** The candidates of a run: the target's listed credentials and every one with a match pattern, of the method's kinds. */
  async forRun(method: CredentialMethod, listed: string[]): Promise<RunCredentials> {
    const rows: (Candidate & { allowBroadMatch: boolean })[] = await this.db('credentials')
      .select('id', 'name', 'kind', 'match_patterns as matchPatterns', 'allow_broad_match as allowBroadMatch')
      .whereIn('kind', credentialKindsOf(method))
      .where((w) => w.whereIn('id', listed).orWhereRaw('cardinality(match_patterns) > 0'))
      .orderBy('name');
    const candidates = rows.map(({ allowBroadMatch, ...c }) => ({ ...c, matchPatterns: this.vault.patternsOffered(c.matchPatterns, allowBroadMatch) }));
    return new RunCredentials(method, listed, candidates, this.vault, this.hostState);
  }
}
