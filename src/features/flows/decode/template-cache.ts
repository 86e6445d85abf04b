// Templates of NetFlow v9 and IPFIX, per exporter and observation domain (RFC 3954 §5, RFC 7011
// §8), with what options records told about the exporter (sampling, its clock). Bounded: a template
// older than the time to live is forgotten (UDP exporters re-send theirs periodically), an exporter
// keeps at most maxTemplatesPerExporter templates, and at most maxExporters exporters are held
// (the one heard from least recently is forgotten first), so hostile traffic cannot grow memory.

export interface TemplateField {
  /** Information element id (without the enterprise bit). */
  id: number;
  /** Length in bytes; 65535 means variable length (IPFIX). */
  length: number;
  /** Private enterprise number; 0 for IANA elements. */
  enterprise: number;
}

export interface Template {
  id: number;
  fields: TemplateField[];
  /** Scope fields lead an options template; 0 for a data template. */
  scopeFieldCount: number;
  options: boolean;
  learnedAt: number;
}

export interface TemplateCacheLimits {
  maxTemplatesPerExporter: number;
  maxExporters: number;
  templateTtlMs: number;
}

export const DEFAULT_TEMPLATE_LIMITS: TemplateCacheLimits = {
  maxTemplatesPerExporter: 512,
  maxExporters: 10_000,
  templateTtlMs: 30 * 60_000,
};

interface ExporterState {
  templates: Map<string, Template>;
  /** Sampling rate per observation domain, and per sampler id within it. */
  sampling: Map<string, number>;
  /** IPFIX systemInitTimeMilliseconds per observation domain. */
  systemInit: Map<number, number>;
}

const key = (domain: number, id: number) => `${domain}/${id}`;

export class TemplateCache {
  private readonly exporters = new Map<string, ExporterState>();

  constructor(readonly limits: TemplateCacheLimits = DEFAULT_TEMPLATE_LIMITS) {}

  private state(exporter: string): ExporterState {
    let state = this.exporters.get(exporter);
    if (state) {
      // Re-inserted so that the map's order is the order of last use.
      this.exporters.delete(exporter);
    } else {
      state = { templates: new Map(), sampling: new Map(), systemInit: new Map() };
      if (this.exporters.size >= this.limits.maxExporters) {
        const oldest = this.exporters.keys().next().value;
        if (oldest !== undefined) this.exporters.delete(oldest);
      }
    }
    this.exporters.set(exporter, state);
    return state;
  }

  /** Learns (or replaces) a template; false when the exporter already holds its cap of others. */
  learn(exporter: string, domain: number, template: Template, now: number): boolean {
    const state = this.state(exporter);
    const k = key(domain, template.id);
    if (!state.templates.has(k) && state.templates.size >= this.limits.maxTemplatesPerExporter) {
      this.expireIn(state, now);
      if (state.templates.size >= this.limits.maxTemplatesPerExporter) return false;
    }
    state.templates.set(k, template);
    return true;
  }

  withdraw(exporter: string, domain: number, templateId: number): void {
    this.exporters.get(exporter)?.templates.delete(key(domain, templateId));
  }

  /** All templates of a domain are withdrawn (IPFIX template id 2 or 3 with no fields). */
  withdrawAll(exporter: string, domain: number, options: boolean): void {
    const state = this.exporters.get(exporter);
    if (!state) return;
    for (const [k, t] of state.templates) if (k.startsWith(`${domain}/`) && t.options === options) state.templates.delete(k);
  }

  find(exporter: string, domain: number, templateId: number, now: number): Template | undefined {
    const state = this.exporters.get(exporter);
    const template = state?.templates.get(key(domain, templateId));
    if (!template) return undefined;
    if (now - template.learnedAt > this.limits.templateTtlMs) {
      state!.templates.delete(key(domain, templateId));
      return undefined;
    }
    return template;
  }

  setSamplingRate(exporter: string, domain: number, samplerId: number | undefined, rate: number): void {
    const sampling = this.state(exporter).sampling;
    sampling.set(`${domain}/${samplerId ?? '*'}`, rate);
    if (samplerId !== undefined && !sampling.has(`${domain}/*`)) sampling.set(`${domain}/*`, rate);
  }

  /** The sampling rate announced for the sampler (or the domain); 1 when none was. */
  samplingRate(exporter: string, domain: number, samplerId: number | undefined): number {
    const sampling = this.exporters.get(exporter)?.sampling;
    if (!sampling) return 1;
    return (samplerId !== undefined ? sampling.get(`${domain}/${samplerId}`) : undefined) ?? sampling.get(`${domain}/*`) ?? 1;
  }

  setSystemInit(exporter: string, domain: number, epochMs: number): void {
    this.state(exporter).systemInit.set(domain, epochMs);
  }

  systemInit(exporter: string, domain: number): number | undefined {
    return this.exporters.get(exporter)?.systemInit.get(domain);
  }

  templateCount(exporter: string): number {
    return this.exporters.get(exporter)?.templates.size ?? 0;
  }

  get exporterCount(): number {
    return this.exporters.size;
  }

  /** Forgets expired templates everywhere (the collector calls it now and then). */
  expire(now: number): void {
    for (const state of this.exporters.values()) this.expireIn(state, now);
  }

  private expireIn(state: ExporterState, now: number): void {
    for (const [k, t] of state.templates) if (now - t.learnedAt > this.limits.templateTtlMs) state.templates.delete(k);
  }
}
