// The history kept in the graph, written by every statement that changes it and read back by GET
// /assets/{id}/history: an asset's status log (statusAt: epoch milliseconds, statusTo: the new
// status, statusBy: who) and an edge's active periods (activePeriods: the times it became active
// and inactive in turn, so that an odd count is an edge active now; activeBy: who, for each). Who
// is `KIND:name`: SOURCE:<the source whose read changed it>, SYSTEM:aging, or the actor of a
// lifecycle action (USER:<name>, INTEGRATION_KEY:<name>).
import type { Actor } from '../auth/audit-log.js';

export type StatusLogActor = { kind: 'SOURCE'; name: string } | { kind: Actor['kind']; name: string };

/** Who, for the actor of a lifecycle action. */
export function statusLogActor(actor: Actor): string {
  return `${actor.kind}:${actor.name ?? actor.id ?? ''}`;
}

export function parseStatusLogActor(text: string): StatusLogActor {
  const at = text.indexOf(':');
  return { kind: text.slice(0, at) as StatusLogActor['kind'], name: text.slice(at + 1) };
}

/** Cypher: the edge `r` is active now. */
export const ACTIVE_NOW = 'r.active';
/** Cypher: the edge `r` was active at $at (epoch milliseconds): an odd count of its period bounds at or before it. */
export const ACTIVE_AT = 'size([t IN coalesce(r.activePeriods, []) WHERE t <= $at]) % 2 = 1';

/** Cypher: the status of the asset `v` at $at (epoch milliseconds) by its log; null when it did not exist yet. */
export const statusAt = (v: string) => `last([i IN range(0, size(coalesce(${v}.statusAt, [])) - 1) WHERE ${v}.statusAt[i] <= $at | ${v}.statusTo[i]])`;
