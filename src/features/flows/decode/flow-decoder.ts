// One entry for every datagram the collector receives: picks the decoder by the version word and
// turns every failure into a counted, dropped datagram. Nothing thrown by a decoder leaves here. A
// flow whose values its columns cannot hold is dropped alone and counted, the rest of its datagram
// kept. What each exporter sent is counted in a bounded map: exporters that never sent a flow are
// forgotten first, then the one heard from least recently, and any not heard from for the time to
// live.
import { BoundedMap } from '../bounded-map.js';
import { decodeIpfix } from './ipfix.js';
import { FlowDecodeError, storable, type DecodedDatagram, type FlowProtocol, type RecordDropReason } from './flow-record.js';
import { decodeNetflowV5 } from './netflow-v5.js';
import { decodeNetflowV9 } from './netflow-v9.js';
import { decodeSflowV5 } from './sflow-v5.js';
import { DEFAULT_TEMPLATE_LIMITS, TemplateCache, type TemplateCacheLimits } from './template-cache.js';

/** What one exporter sent, as the collector counted it. */
export interface ExporterCounters {
  address: string;
  protocol?: FlowProtocol;
  datagrams: number;
  /** Flow records read from its datagrams; each is stored, dropped (by reason) or still queued. */
  flows: number;
  decodeErrors: number;
  missingTemplates: number;
  templatesRefused: number;
  recordsStored: number;
  recordsDropped: Record<RecordDropReason, number>;
  lastDatagramAt: number;
}

export interface DecoderLimits extends TemplateCacheLimits {
  /** Exporters whose counters are held. */
  maxExporters: number;
  exporterTtlMs: number;
}

export const DEFAULT_DECODER_LIMITS: DecoderLimits = { ...DEFAULT_TEMPLATE_LIMITS, maxExporters: 10_000, exporterTtlMs: 60 * 60_000 };

/** The protocol a datagram names by its version word (and the port it came to); unknown when none. */
export type DatagramProtocol = FlowProtocol | 'unknown';

export function protocolOf(datagram: Buffer, sflow: boolean): DatagramProtocol {
  if (datagram.length < 4) return 'unknown';
  if (sflow) return datagram.readUInt32BE(0) === 5 ? 'sflow-v5' : 'unknown';
  const version = datagram.readUInt16BE(0);
  return version === 5 ? 'netflow-v5' : version === 9 ? 'netflow-v9' : version === 10 ? 'ipfix' : 'unknown';
}

export type DecodeOutcome = { ok: true; datagram: DecodedDatagram } | { ok: false; reason: string };

const zeroDrops = (): Record<RecordDropReason, number> => ({ fieldWidth: 0, fieldRange: 0, outOfWindow: 0, queueOverflow: 0, writeFailed: 0 });

export class FlowDecoder {
  readonly templates: TemplateCache;
  readonly exporters: BoundedMap<string, ExporterCounters>;

  constructor(limits: Partial<DecoderLimits> = {}) {
    const all = { ...DEFAULT_DECODER_LIMITS, ...limits };
    this.templates = new TemplateCache(all);
    this.exporters = new BoundedMap({ capacity: all.maxExporters, ttlMs: all.exporterTtlMs });
  }

  /**
   * Decodes one datagram from `source` (the sender's address). `sflow` says the datagram came to the
   * sFlow port: sFlow and NetFlow share version numbers (5), so the port tells them apart.
   */
  decode(datagram: Buffer, source: string, sflow: boolean, now = Date.now()): DecodeOutcome {
    const counters = this.exporters.get(source, now) ?? this.newExporter(source, now);
    counters.datagrams++;
    counters.lastDatagramAt = now;
    try {
      const decoded = this.dispatch(datagram, source, sflow, now);
      const kept = decoded.flows.every(storable) ? decoded.flows : decoded.flows.filter(storable);
      decoded.recordsDropped.fieldRange += decoded.flows.length - kept.length;
      decoded.flows = kept;
      counters.protocol = decoded.protocol;
      counters.flows += kept.length + decoded.recordsDropped.fieldWidth + decoded.recordsDropped.fieldRange;
      counters.recordsDropped.fieldWidth += decoded.recordsDropped.fieldWidth;
      counters.recordsDropped.fieldRange += decoded.recordsDropped.fieldRange;
      counters.missingTemplates += decoded.missingTemplates;
      counters.templatesRefused += decoded.templatesRefused;
      // An exporter whose flows we keep is worth more than one that sent none (garbage, templates only).
      if (kept.length > 0) this.exporters.use(source, now);
      else this.exporters.set(source, counters, now);
      return { ok: true, datagram: decoded };
    } catch (error) {
      counters.decodeErrors++;
      this.exporters.set(source, counters, now);
      // Anything else (a RangeError from a Buffer read we did not guard) is a malformed datagram too.
      const reason = error instanceof FlowDecodeError ? error.message : `malformed: ${error instanceof Error ? error.message : String(error)}`;
      return { ok: false, reason };
    }
  }

  private newExporter(address: string, now: number): ExporterCounters {
    const counters: ExporterCounters = {
      address, datagrams: 0, flows: 0, decodeErrors: 0, missingTemplates: 0, templatesRefused: 0, recordsStored: 0, recordsDropped: zeroDrops(), lastDatagramAt: now,
    };
    this.exporters.set(address, counters, now);
    return counters;
  }

  private dispatch(datagram: Buffer, source: string, sflow: boolean, now: number): DecodedDatagram {
    if (datagram.length < 4) throw new FlowDecodeError(`datagram of ${datagram.length} bytes`);
    switch (protocolOf(datagram, sflow)) {
      case 'sflow-v5':
        return decodeSflowV5(datagram, now);
      case 'netflow-v5':
        return decodeNetflowV5(datagram, source);
      case 'netflow-v9':
        return decodeNetflowV9(datagram, source, this.templates, now);
      case 'ipfix':
        return decodeIpfix(datagram, source, this.templates, now);
      default:
        throw new FlowDecodeError(sflow ? `sFlow version ${datagram.readUInt32BE(0)}` : `NetFlow version ${datagram.readUInt16BE(0)}`);
    }
  }

  /** Adds to an exporter's record counts (stored, or dropped by the collector); nothing when it was forgotten meanwhile. */
  countRecords(address: string, outcome: 'stored' | RecordDropReason, count: number, now = Date.now()): void {
    const counters = this.exporters.get(address, now);
    if (!counters) return;
    if (outcome === 'stored') counters.recordsStored += count;
    else counters.recordsDropped[outcome] += count;
  }

  /** Forgets exporters, templates, rates and clocks past their time to live. */
  expire(now: number): void {
    this.exporters.sweep(now);
    this.templates.expire(now);
  }

  /** Counters of every exporter held. */
  counters(): ExporterCounters[] {
    return [...this.exporters.entries()].map(([, c]) => ({ ...c, recordsDropped: { ...c.recordsDropped } }));
  }
}
