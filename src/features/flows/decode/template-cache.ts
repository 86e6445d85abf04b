// Templates of NetFlow v9 and IPFIX, per exporter and observation domain (RFC 3954 §5, RFC 7011
// §8), with what options records told about the exporter (sampling rates by sampler id, its clock).
// Both are bounded maps (bounded-map.ts): a template is forgotten when not re-sent for the time to
// live (UDP exporters re-send theirs periodically) or when room is needed, templates no data set
// ever read going first, so a flood of new template ids from an exporter's address cannot push out
// the templates its flows use. A domain holds at most maxTemplatesPerDomain; when all of them are in
// use a new one is refused (counted). Sampling rates and clocks are forgotten when not announced
// or read for their time to live, or when room is needed, those no flow read going first.
import { BoundedMap } from '../bounded-map.js';

export interface Template {
  id: number;
  /** Per field: bit 31 set for an enterprise element (skipped), bits 16-30 its element id, bits 0-15 its length (65535: variable). */
  fields: Uint32Array;
  /** Scope fields lead an options template; 0 for a data template. */
  scopeFieldCount: number;
  options: boolean;
  learnedAt: number;
  /** Bytes of the shortest record (a variable-length field counts one byte). */
  minimumLength: number;
}

export interface TemplateCacheLimits {
  /** Templates held, all exporters together. */
  maxTemplates: number;
  maxTemplatesPerDomain: number;
  templateTtlMs: number;
  /** Sampling rates (per sampler id, or per domain) and exporter clocks held, all exporters together. */
  maxSamplerIds: number;
  samplerTtlMs: number;
}

export const DEFAULT_TEMPLATE_LIMITS: TemplateCacheLimits = {
  maxTemplates: 20_000,
  maxTemplatesPerDomain: 512,
  templateTtlMs: 30 * 60_000,
  maxSamplerIds: 100_000,
  samplerTtlMs: 60 * 60_000,
};

const domainKey = (exporter: string, domain: number) => `${exporter}|${domain}`;
const templateKey = (exporter: string, domain: number, id: number) => `${exporter}|${domain}|${id}`;
const samplerKey = (exporter: string, domain: number, samplerId: number | undefined) => `${exporter}|${domain}|rate:${samplerId ?? '*'}`;
const clockKey = (exporter: string, domain: number) => `${exporter}|${domain}|init`;

export class TemplateCache {
  readonly templates: BoundedMap<string, Template>;
  /** Sampling rates and exporter clocks, keyed by exporter, domain and what they are. */
  readonly options: BoundedMap<string, number>;

  constructor(readonly limits: TemplateCacheLimits = DEFAULT_TEMPLATE_LIMITS) {
    this.templates = new BoundedMap(
      { capacity: limits.maxTemplates, ttlMs: limits.templateTtlMs },
      { of: (key) => key.slice(0, key.lastIndexOf('|')), capacity: limits.maxTemplatesPerDomain },
    );
    this.options = new BoundedMap({ capacity: limits.maxSamplerIds, ttlMs: limits.samplerTtlMs });
  }

  /** Learns (or replaces) a template; false when its domain is full of templates in use. */
  learn(exporter: string, domain: number, template: Template, now: number): boolean {
    return this.templates.set(templateKey(exporter, domain, template.id), template, now);
  }

  withdraw(exporter: string, domain: number, templateId: number): void {
    this.templates.delete(templateKey(exporter, domain, templateId));
  }

  /** All templates of a domain are withdrawn (IPFIX template id 2 or 3 with no fields). */
  withdrawAll(exporter: string, domain: number, options: boolean, now: number): void {
    for (const key of this.templates.keysOf(domainKey(exporter, domain))) if (this.templates.get(key, now)?.options === options) this.templates.delete(key);
  }

  /** The template a data set names, marked in use; undefined when unknown or not re-sent within the time to live. */
  find(exporter: string, domain: number, templateId: number, now: number): Template | undefined {
    const key = templateKey(exporter, domain, templateId);
    const template = this.templates.use(key, now);
    if (template && now - template.learnedAt > this.limits.templateTtlMs) {
      this.templates.delete(key);
      return undefined;
    }
    return template;
  }

  setSamplingRate(exporter: string, domain: number, samplerId: number | undefined, rate: number, now: number): void {
    this.options.set(samplerKey(exporter, domain, samplerId), rate, now);
    const domainWide = samplerKey(exporter, domain, undefined);
    if (samplerId !== undefined && this.options.get(domainWide, now) === undefined) this.options.set(domainWide, rate, now);
  }

  /** The sampling rate announced for the sampler (or the domain); 1 when none was. */
  samplingRate(exporter: string, domain: number, samplerId: number | undefined, now: number): number {
    return (samplerId !== undefined ? this.options.use(samplerKey(exporter, domain, samplerId), now) : undefined) ?? this.options.use(samplerKey(exporter, domain, undefined), now) ?? 1;
  }

  setSystemInit(exporter: string, domain: number, epochMs: number, now: number): void {
    this.options.set(clockKey(exporter, domain), epochMs, now);
  }

  systemInit(exporter: string, domain: number, now: number): number | undefined {
    return this.options.use(clockKey(exporter, domain), now);
  }

  templateCount(exporter: string): number {
    let count = 0;
    for (const [key] of this.templates.entries()) if (key.startsWith(`${exporter}|`)) count++;
    return count;
  }

  /** Forgets templates, rates and clocks past their time to live (the collector calls it at every flush). */
  expire(now: number): void {
    this.templates.sweep(now);
    this.options.sweep(now);
  }
}
