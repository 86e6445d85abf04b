// The service's clock in tests: real time, moved on by a test where it would otherwise wait for an
// expiry. Each test service has one, found by its URL (principals.ts has only the URL).
import type { Clock } from '../../src/platform/clock.js';

export class TestClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

const clocks = new Map<string, TestClock>();

export function registerClock(baseUrl: string, clock: TestClock): void {
  clocks.set(baseUrl, clock);
}

export function forgetClock(baseUrl: string): void {
  clocks.delete(baseUrl);
}

/** The clock of the test service at `baseUrl`. */
export function clockOf(baseUrl: string): TestClock {
  const clock = clocks.get(baseUrl);
  if (!clock) throw new Error(`no test service with a test clock at ${baseUrl}: start it with startTestService`);
  return clock;
}
