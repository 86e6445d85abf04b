// A map whose keys come from the network, bounded by a capacity and an idle time to live. A
// segmented LRU: entries used since they were set (a template a data set read, an exporter that
// sent flows) are protected, up to PROTECTED_SHARE of the capacity; new entries, and protected ones
// pushed out by newer uses, wait in the rest and are forgotten first. A flood of new keys churns
// among its own entries and leaves the ones real traffic uses. Within a group (the templates of
// one exporter's observation domain) a cap of its own applies, so that one group cannot take the
// others' room; a full group whose entries are all in use refuses a new one. Order is kept by Map
// insertion order (re-inserted on every touch), so the least recently touched entry comes first
// (but for protected entries pushed back, which join the end): eviction and expiry cost O(1) per
// entry forgotten.

export interface BoundedMapLimits {
  capacity: number;
  /** An entry not touched (set or used) for this long is forgotten. */
  ttlMs: number;
}

export interface GroupLimit<K> {
  of: (key: K) => string;
  capacity: number;
}

/** How many entries a map forgot (for room, or idle), and refused; monotonic, read by /metrics. */
export interface BoundedMapStats {
  evicted: number;
  expired: number;
  refused: number;
}

/** The part of the capacity that entries in use may hold; new entries always find room in the rest. */
const PROTECTED_SHARE = 0.8;

interface Entry<V> {
  value: V;
  touchedAt: number;
  used: boolean;
}

export class BoundedMap<K, V> {
  /** Not used since set, or pushed out of the protected segment; least recently touched first. */
  private readonly fresh = new Map<K, Entry<V>>();
  /** Used since set (the protected segment); least recently touched first. */
  private readonly used = new Map<K, Entry<V>>();
  private readonly protectedCapacity: number;
  /** Each group's keys, least recently touched first. */
  private readonly groups = new Map<string, Set<K>>();
  readonly stats: BoundedMapStats = { evicted: 0, expired: 0, refused: 0 };

  constructor(
    readonly limits: BoundedMapLimits,
    private readonly group?: GroupLimit<K>,
  ) {
    this.protectedCapacity = Math.max(1, Math.floor(limits.capacity * PROTECTED_SHARE));
  }

  get size(): number {
    return this.fresh.size + this.used.size;
  }

  /** The value, unless absent or idle past the time to live; its place in the order is unchanged. */
  get(key: K, now: number): V | undefined {
    const entry = this.used.get(key) ?? this.fresh.get(key);
    if (!entry) return undefined;
    if (now - entry.touchedAt > this.limits.ttlMs) {
      this.forget(key, 'expired');
      return undefined;
    }
    return entry.value;
  }

  /** The value, marked used and touched (it becomes the last to be forgotten). */
  use(key: K, now: number): V | undefined {
    const value = this.get(key, now);
    if (value === undefined) return undefined;
    const entry = (this.used.get(key) ?? this.fresh.get(key)) as Entry<V>;
    entry.used = true;
    this.touch(key, entry, now);
    if (this.used.size > this.protectedCapacity) {
      // The protected segment's least recently used entry waits with the new ones again.
      const [demoted, oldest] = first(this.used) as [K, Entry<V>];
      this.used.delete(demoted);
      oldest.used = false;
      this.fresh.set(demoted, oldest);
    }
    return value;
  }

  /** Sets (or replaces, keeping whether it was used) and touches; false when the key's group refused it. */
  set(key: K, value: V, now: number): boolean {
    const existing = this.used.get(key) ?? this.fresh.get(key);
    if (existing) {
      existing.value = value;
      this.touch(key, existing, now);
      return true;
    }
    const groupKey = this.group?.of(key);
    if (groupKey !== undefined && !this.roomInGroup(groupKey)) {
      this.stats.refused++;
      return false;
    }
    if (this.size >= this.limits.capacity) {
      const [victim, entry] = first(this.fresh) ?? (first(this.used) as [K, Entry<V>]);
      this.forget(victim, now - entry.touchedAt > this.limits.ttlMs ? 'expired' : 'evicted');
    }
    const entry = { value, touchedAt: now, used: false };
    this.fresh.set(key, entry);
    if (groupKey !== undefined) {
      let keys = this.groups.get(groupKey);
      if (!keys) this.groups.set(groupKey, (keys = new Set()));
      keys.add(key);
    }
    return true;
  }

  delete(key: K): void {
    this.remove(key);
  }

  /** Forgets every entry idle past the time to live. */
  sweep(now: number): void {
    for (const segment of [this.fresh, this.used]) {
      for (const [key, entry] of segment) {
        if (now - entry.touchedAt <= this.limits.ttlMs) break;
        this.forget(key, 'expired');
      }
    }
  }

  /** The keys of a group, least recently touched first. */
  keysOf(groupKey: string): K[] {
    return [...(this.groups.get(groupKey) ?? [])];
  }

  *entries(): IterableIterator<[K, V]> {
    for (const segment of [this.fresh, this.used]) for (const [key, entry] of segment) yield [key, entry.value];
  }

  /** Makes room for one more entry in a full group: its oldest unused entry goes; none when all are in use (what is in use is worth more than what is new). */
  private roomInGroup(groupKey: string): boolean {
    const keys = this.groups.get(groupKey);
    if (!keys || keys.size < (this.group as GroupLimit<K>).capacity) return true;
    for (const key of keys) {
      if (this.fresh.has(key)) {
        this.forget(key, 'evicted');
        return true;
      }
    }
    return false;
  }

  private touch(key: K, entry: Entry<V>, now: number): void {
    entry.touchedAt = now;
    this.fresh.delete(key);
    this.used.delete(key);
    (entry.used ? this.used : this.fresh).set(key, entry);
    const keys = this.group ? this.groups.get(this.group.of(key)) : undefined;
    if (keys) {
      keys.delete(key);
      keys.add(key);
    }
  }

  private forget(key: K, reason: 'evicted' | 'expired'): void {
    this.stats[reason]++;
    this.remove(key);
  }

  private remove(key: K): void {
    this.fresh.delete(key);
    this.used.delete(key);
    if (!this.group) return;
    const groupKey = this.group.of(key);
    const keys = this.groups.get(groupKey);
    keys?.delete(key);
    if (keys?.size === 0) this.groups.delete(groupKey);
  }
}

function first<K, V>(map: Map<K, V>): [K, V] | undefined {
  return map.entries().next().value;
}
