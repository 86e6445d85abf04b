// One entry for every datagram the collector receives: picks the decoder by the version word and
// turns every failure into a counted, dropped datagram. Nothing thrown by a decoder leaves here.
import { decodeIpfix } from './ipfix.js';
import { FlowDecodeError, type DecodedDatagram, type FlowProtocol } from './flow-record.js';
import { decodeNetflowV5 } from './netflow-v5.js';
import { decodeNetflowV9 } from './netflow-v9.js';
import { decodeSflowV5 } from './sflow-v5.js';
import { TemplateCache, type TemplateCacheLimits } from './template-cache.js';

/** What one exporter sent, as the collector counted it. */
export interface ExporterCounters {
  address: string;
  protocol?: FlowProtocol;
  datagrams: number;
  flows: number;
  decodeErrors: number;
  missingTemplates: number;
  templatesRefused: number;
  lastDatagramAt: number;
}

export type DecodeOutcome = { ok: true; datagram: DecodedDatagram } | { ok: false; reason: string };

export class FlowDecoder {
  readonly templates: TemplateCache;
  private readonly exporters = new Map<string, ExporterCounters>();

  constructor(limits?: TemplateCacheLimits, private readonly maxExporters = limits?.maxExporters ?? 10_000) {
    this.templates = new TemplateCache(limits);
  }

  /**
   * Decodes one datagram from `source` (the sender's address). `sflow` says the datagram came to the
   * sFlow port: sFlow and NetFlow share version numbers (5), so the port tells them apart.
   */
  decode(datagram: Buffer, source: string, sflow: boolean, now = Date.now()): DecodeOutcome {
    const counters = this.countersOf(source, now);
    counters.datagrams++;
    try {
      const decoded = this.dispatch(datagram, source, sflow, now);
      counters.protocol = decoded.protocol;
      counters.flows += decoded.flows.length;
      counters.missingTemplates += decoded.missingTemplates;
      counters.templatesRefused += decoded.templatesRefused;
      return { ok: true, datagram: decoded };
    } catch (error) {
      counters.decodeErrors++;
      // Anything else (a RangeError from a Buffer read we did not guard) is a malformed datagram too.
      const reason = error instanceof FlowDecodeError ? error.message : `malformed: ${error instanceof Error ? error.message : String(error)}`;
      return { ok: false, reason };
    }
  }

  private dispatch(datagram: Buffer, source: string, sflow: boolean, now: number): DecodedDatagram {
    if (datagram.length < 4) throw new FlowDecodeError(`datagram of ${datagram.length} bytes`);
    if (sflow) {
      const version = datagram.readUInt32BE(0);
      if (version !== 5) throw new FlowDecodeError(`sFlow version ${version}`);
      return decodeSflowV5(datagram, now);
    }
    const version = datagram.readUInt16BE(0);
    switch (version) {
      case 5:
        return decodeNetflowV5(datagram, source);
      case 9:
        return decodeNetflowV9(datagram, source, this.templates, now);
      case 10:
        return decodeIpfix(datagram, source, this.templates, now);
      default:
        throw new FlowDecodeError(`NetFlow version ${version}`);
    }
  }

  private countersOf(address: string, now: number): ExporterCounters {
    let counters = this.exporters.get(address);
    if (!counters) {
      // Bounded like the template cache: the exporter heard from least recently goes first.
      if (this.exporters.size >= this.maxExporters) {
        const oldest = [...this.exporters.values()].reduce((a, b) => (a.lastDatagramAt <= b.lastDatagramAt ? a : b));
        this.exporters.delete(oldest.address);
      }
      counters = { address, datagrams: 0, flows: 0, decodeErrors: 0, missingTemplates: 0, templatesRefused: 0, lastDatagramAt: now };
      this.exporters.set(address, counters);
    }
    counters.lastDatagramAt = now;
    return counters;
  }

  /** Counters of every exporter heard from. */
  counters(): ExporterCounters[] {
    return [...this.exporters.values()].map((c) => ({ ...c }));
  }
}

