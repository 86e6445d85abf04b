// A target's cron schedule (UTC; 5 fields, or 6 with seconds first), checked before it is kept: a
// schedule that cron-parser cannot read would fail every scheduler tick, and one that fires more
// often than service.discovery.min-schedule-interval-seconds would keep a worker scanning.
import { CronExpressionParser } from 'cron-parser';
import { cronExpression } from '../../platform/config.js';

const DAY_SECONDS = 86_400;

/**
 * The shortest time between two firings, in seconds: within a day, from the second, minute and
 * hour fields; across midnight, as if the next day fired too (a bound from below, whatever the
 * day fields say).
 */
export function shortestInterval(schedule: string): number {
  const { second, minute, hour } = CronExpressionParser.parse(schedule, { tz: 'UTC' }).fields;
  const times = hour.values.flatMap((h) => minute.values.flatMap((m) => second.values.map((s) => Number(h) * 3600 + Number(m) * 60 + Number(s)))).sort((a, b) => a - b);
  let shortest = DAY_SECONDS - (times.at(-1) as number) + (times[0] as number);
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, (times[i] as number) - (times[i - 1] as number));
  return shortest;
}

/** Why a schedule is refused, or undefined. */
export function scheduleProblem(schedule: string, minSeconds: number): string | undefined {
  if (!cronExpression.safeParse(schedule).success) return 'must be a cron expression of 5 or 6 fields';
  let interval: number;
  try {
    interval = shortestInterval(schedule);
  } catch (error) {
    return `is not a cron expression that can run: ${(error as Error).message.slice(0, 200)}`;
  }
  if (interval < minSeconds) return `fires ${interval} s apart; the minimum is ${minSeconds} s (service.discovery.min-schedule-interval-seconds)`;
  return undefined;
}
