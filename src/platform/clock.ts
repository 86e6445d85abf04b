// The time the service reads where a test must move it on (a key's expiry) without waiting for it.
export interface Clock {
  /** Epoch milliseconds, as Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
