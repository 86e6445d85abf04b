// Which rollups answer a time window: the window is widened to whole minutes, then each part is
// read from the coarsest rollup of the kind asked for (endpoint or conversation) whose buckets fit
// in it and that keeps the dimensions the query needs (the hours in the middle from the 1-hour
// rollup, the 5-minute and 1-minute edges from the finer ones). Pure: the store turns the segments
// into one UNION ALL.
import { ROLLUPS, type Rollup } from './flow-store.js';

const MINUTE_MS = 60_000;

export interface WindowSegment {
  rollup: Rollup;
  from: number;
  to: number;
}

export interface WindowPlan {
  /** The window read: the one asked for, widened to whole minutes. */
  from: number;
  to: number;
  segments: WindowSegment[];
}

/** What a query needs a rollup to be and to keep. */
export interface Dimensions {
  kind: Rollup['kind'];
  ports: boolean;
  interfaces: boolean;
  /** Only rollups whose buckets are at most this long (a series' step). */
  maxBucketMs?: number;
}

export function planWindow(from: number, to: number, needs: Dimensions): WindowPlan {
  const start = Math.floor(from / MINUTE_MS) * MINUTE_MS;
  const end = Math.ceil(to / MINUTE_MS) * MINUTE_MS;
  // Coarsest first; ROLLUPS is finest first in each kind, and the finest keeps every dimension of its kind.
  const usable = ROLLUPS.filter((r) => r.kind === needs.kind && (!needs.ports || r.ports) && (!needs.interfaces || r.interfaces) && r.bucketMs <= (needs.maxBucketMs ?? Infinity)).reverse();
  const segments: WindowSegment[] = [];
  const cover = (a: number, b: number, level: number): void => {
    const rollup = usable[level];
    if (a >= b || !rollup) return;
    const first = Math.ceil(a / rollup.bucketMs) * rollup.bucketMs;
    const last = Math.floor(b / rollup.bucketMs) * rollup.bucketMs;
    if (first >= last) return cover(a, b, level + 1);
    cover(a, first, level + 1);
    segments.push({ rollup, from: first, to: last });
    cover(last, b, level + 1);
  };
  cover(start, end, 0);
  return { from: start, to: end, segments: segments.sort((x, y) => x.from - y.from) };
}
