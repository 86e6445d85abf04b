// A read in parts, as the cloud connectors (AWS, AZURE) do it: each part (a service in a region or
// subscription) succeeds or fails on its own, a failed one keeping what it read and recording its
// error; every page read is counted against the target's resource limit and the per-host deadline,
// which stop the parts not yet read in full (said once).
import type { ScanMethod } from '../host-observation.js';
import type { RunError } from '../run-record.js';

/** A part of a read: its own scope, retired only by its own complete read. */
export interface PartRead {
  name: string;
  complete: boolean;
}

/** A stop the read itself decides (the deadline, the resource limit, a check of an answer), with its code. */
export class StopRead<Code extends string> extends Error {
  constructor(readonly code: Code | 'HOST_TIMEOUT', message: string) {
    super(message);
  }
}

/** Runs `work` over `items`, `limit` at a time. */
export async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++] as T);
  }));
}

export interface PartedReadOptions<Code extends string> {
  address: string;
  method: ScanMethod;
  deadline: number;
  maxResources: number;
  /** The code and the words of the resource limit (for example AWS_READ_TRUNCATED, settings.AWS.maxResources). */
  truncated: { code: Code; what: string };
  /** An error of the provider's SDK as a scan error code and a line. */
  classify: (error: unknown) => { code: Code | RunError['code']; detail: string };
}

export class PartedRead<Code extends string> {
  readonly parts: PartRead[] = [];
  readonly errors: RunError[] = [];
  private resources = 0;
  private truncated = false;

  constructor(private readonly options: PartedReadOptions<Code>) {}

  /** Counts what a page gave, and stops the read at the deadline or the resource limit. */
  readonly take = <T>(items: T[] | undefined, into: T[]): void => {
    if (Date.now() >= this.options.deadline) throw new StopRead<Code>('HOST_TIMEOUT', 'the per-host time-out ended the read');
    const got = items ?? [];
    this.resources += got.length;
    if (this.resources > this.options.maxResources) {
      this.truncated = true;
      throw new StopRead(this.options.truncated.code, `${this.options.truncated.what} (${this.options.maxResources}) resources`);
    }
    into.push(...got);
  };

  /** Reads one part; a failure is recorded and leaves the part incomplete, with what it read kept. */
  async part(name: string, what: string, work: () => Promise<void>): Promise<void> {
    if (this.truncated) {
      this.parts.push({ name, complete: false });
      return;
    }
    try {
      await work();
      this.parts.push({ name, complete: true });
    } catch (error) {
      this.parts.push({ name, complete: false });
      const { code, detail } = error instanceof StopRead ? { code: error.code as RunError['code'], detail: error.message } : this.options.classify(error);
      // The resource limit is said once, not by every part it stops.
      if (code === this.options.truncated.code && this.errors.some((e) => e.code === code)) return;
      this.errors.push({ address: this.options.address, method: this.options.method, stage: 'collect', code: code as RunError['code'], message: `${what}: ${detail}. What was read of it is kept; nothing of it is retired.`.slice(0, 1000) });
    }
  }
}
