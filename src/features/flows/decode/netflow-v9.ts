// NetFlow v9 (RFC 3954): a 20-byte header, then flowsets: 0 templates, 1 options templates, 256
// and above data read through a template learned earlier from the same exporter and source id.
import { ByteReader } from './byte-reader.js';
import { emptyDatagram, FlowDecodeError, type DecodedDatagram } from './flow-record.js';
import type { TemplateCache } from './template-cache.js';
import { readSets, type RawSet, type SetContext } from './template-sets.js';

export function decodeNetflowV9(datagram: Buffer, exporter: string, cache: TemplateCache, now: number): DecodedDatagram {
  const reader = new ByteReader(datagram);
  reader.skip(2 + 2); // version, count (of records: unreliable across exporters, the length rules)
  const sysUptime = reader.u32();
  const unixSecs = reader.u32();
  reader.skip(4); // sequence
  const sourceId = reader.u32();
  const out = emptyDatagram('netflow-v9');
  const ctx: SetContext = {
    exporter,
    domain: sourceId,
    now,
    cache,
    ipfix: false,
    headerUptime: sysUptime,
    exportTime: unixSecs * 1000,
    templatesRefused: 0,
    rates: new Map(),
  };
  const sets: RawSet[] = [];
  while (reader.remaining >= 4) {
    const id = reader.u16();
    const length = reader.u16();
    if (length < 4) throw new FlowDecodeError(`flowset of length ${length}`);
    sets.push({ id, body: reader.sub(length - 4) });
  }
  // Flowsets 2 to 255 are reserved: skipped.
  readSets(sets, ctx, out);
  return out;
}
