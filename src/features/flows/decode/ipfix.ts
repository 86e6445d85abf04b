// IPFIX (RFC 7011): a 16-byte header whose length field bounds the message, then sets: 2
// templates, 3 options templates, 256 and above data read through a template learned earlier from
// the same exporter and observation domain.
import { ByteReader } from './byte-reader.js';
import { emptyDatagram, FlowDecodeError, type DecodedDatagram } from './flow-record.js';
import type { TemplateCache } from './template-cache.js';
import { readSets, type RawSet, type SetContext } from './template-sets.js';

const HEADER_LENGTH = 16;

export function decodeIpfix(datagram: Buffer, exporter: string, cache: TemplateCache, now: number): DecodedDatagram {
  const header = new ByteReader(datagram);
  header.skip(2); // version
  const length = header.u16();
  const exportTime = header.u32();
  header.skip(4); // sequence
  const domain = header.u32();
  if (length < HEADER_LENGTH) throw new FlowDecodeError(`IPFIX message length ${length}`);
  const reader = new ByteReader(datagram, HEADER_LENGTH, length);
  const out = emptyDatagram('ipfix');
  const ctx: SetContext = { exporter, domain, now, cache, ipfix: true, exportTime: exportTime * 1000, templatesRefused: 0, rates: new Map() };
  const sets: RawSet[] = [];
  while (reader.remaining > 0) {
    const id = reader.u16();
    const setLength = reader.u16();
    if (setLength < 4) throw new FlowDecodeError(`set of length ${setLength}`);
    if (id < 256 && id !== 2 && id !== 3) throw new FlowDecodeError(`set id ${id} is reserved`);
    sets.push({ id, body: reader.sub(setLength - 4) });
  }
  readSets(sets, ctx, out);
  return out;
}
