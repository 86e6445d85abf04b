// NetFlow v5 (Cisco's fixed format): a 24-byte header and up to 30 records of 48 bytes. Times are
// milliseconds of the exporter's uptime, made absolute with the header's clock.
import { ByteReader, ipv4, uptimeToEpoch } from './byte-reader.js';
import { emptyDatagram, FlowDecodeError, type DecodedDatagram } from './flow-record.js';

const HEADER_LENGTH = 24;
const RECORD_LENGTH = 48;
const MAX_RECORDS = 30;

export function decodeNetflowV5(datagram: Buffer, exporter: string): DecodedDatagram {
  const reader = new ByteReader(datagram);
  reader.skip(2); // version
  const count = reader.u16();
  const sysUptime = reader.u32();
  const unixSecs = reader.u32();
  const unixNsecs = reader.u32();
  reader.skip(4 + 1); // flow sequence, engine type
  const engineId = reader.u8();
  const sampling = reader.u16();
  if (count > MAX_RECORDS) throw new FlowDecodeError(`NetFlow v5 with ${count} records (at most ${MAX_RECORDS})`);
  if (datagram.length < HEADER_LENGTH + count * RECORD_LENGTH) {
    throw new FlowDecodeError(`NetFlow v5 truncated: ${count} records need ${HEADER_LENGTH + count * RECORD_LENGTH} bytes, got ${datagram.length}`);
  }
  // The low 14 bits are the interval (the top two the mode); 0 means unsampled.
  const samplingRate = Math.max(1, sampling & 0x3fff);
  const exportTime = unixSecs * 1000 + Math.floor(unixNsecs / 1e6);
  const out = emptyDatagram('netflow-v5');
  for (let i = 0; i < count; i++) {
    const srcAddr = ipv4(reader.bytes(4));
    const dstAddr = ipv4(reader.bytes(4));
    reader.skip(4); // next hop
    const inputInterface = reader.u16();
    const outputInterface = reader.u16();
    const packets = reader.u32();
    const bytes = reader.u32();
    const first = reader.u32();
    const last = reader.u32();
    const srcPort = reader.u16();
    const dstPort = reader.u16();
    reader.skip(1);
    const tcpFlags = reader.u8();
    const protocol = reader.u8();
    const tos = reader.u8();
    reader.skip(8); // AS numbers, masks, padding
    out.flows.push({
      exporter,
      observationDomain: engineId,
      start: uptimeToEpoch(first, sysUptime, exportTime),
      end: uptimeToEpoch(last, sysUptime, exportTime),
      srcAddr,
      dstAddr,
      srcPort,
      dstPort,
      protocol,
      tcpFlags,
      tos,
      bytes,
      packets,
      samplingRate,
      inputInterface,
      outputInterface,
    });
  }
  return out;
}
