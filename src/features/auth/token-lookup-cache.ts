// Tokens found by their hash, kept so that a request with a known key needs no PostgreSQL read.
// Trusted only while the auth_changes notifications are heard (migration notify_auth_changes
// fires one whenever a token is revoked, re-dated or deleted, or a user's name, roles or state
// change): a notification, or losing the listener, empties it. A change made by this process
// empties it at once, before its notification comes back. Entries also age out, a backstop.
import type { TokenLookup } from './api-token-store.js';

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export class TokenLookupCache {
  private readonly entries = new Map<string, { lookup: TokenLookup; at: number }>();
  private heard = false;
  /** Moves on every clear: a lookup read before a change is not kept after it. */
  private generation = 0;

  /** Whether changes are heard (and lookups kept). */
  get trusted(): boolean {
    return this.heard;
  }

  /** What `set` must be given for a lookup about to be read. */
  get readMark(): number {
    return this.generation;
  }

  get(tokenHash: string): TokenLookup | undefined {
    if (!this.heard) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (Date.now() - entry.at > TTL_MS) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.lookup;
  }

  /** Keeps a lookup read after `readMark` was taken, unless something changed since. */
  set(tokenHash: string, lookup: TokenLookup, readMark: number): void {
    if (!this.heard || readMark !== this.generation) return;
    // The oldest entry goes first (a Map keeps insertion order).
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, { lookup, at: Date.now() });
  }

  /** Something about tokens or users changed: nothing kept can be trusted. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Notifications are heard from now on. */
  trust(): void {
    this.clear();
    this.heard = true;
  }

  /** Notifications may be missed: keep nothing. */
  distrust(): void {
    this.heard = false;
    this.clear();
  }
}
