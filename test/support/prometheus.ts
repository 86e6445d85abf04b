// The Prometheus text format as /metrics serves it, read back by tests.

export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format: each sample as { name, labels, value }; HELP/TYPE lines checked for shape. */
export function parsePrometheus(text: string): PrometheusSample[] {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      expect(line).toMatch(/^# (HELP [a-zA-Z_:][\w:]* .*|TYPE [a-zA-Z_:][\w:]* (counter|gauge|histogram|summary|untyped))$/);
      continue;
    }
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k as string] = v as string;
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return samples;
}
