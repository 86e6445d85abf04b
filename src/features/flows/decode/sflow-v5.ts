// sFlow v5 (sflow.org "sFlow Version 5", XDR encoded): flow samples carry the first bytes of
// sampled packets, which we parse down to addresses and ports; counter samples carry interface
// counters. Each sampled packet becomes one flow of one packet, weighted by its sampling rate.
import { ByteReader, ipAddress, ipv4 } from './byte-reader.js';
import { emptyDatagram, FlowDecodeError, type DecodedDatagram, type FlowRecord } from './flow-record.js';

// Sample and record formats: enterprise 0, the format number in the low 12 bits.
const FLOW_SAMPLE = 1;
const COUNTER_SAMPLE = 2;
const EXPANDED_FLOW_SAMPLE = 3;
const EXPANDED_COUNTER_SAMPLE = 4;
const RAW_PACKET_HEADER = 1;
const SAMPLED_IPV4 = 3;
const SAMPLED_IPV6 = 4;
const GENERIC_INTERFACE_COUNTERS = 1;
const HEADER_PROTOCOL_ETHERNET = 1;
const HEADER_PROTOCOL_IPV4 = 11;
const HEADER_PROTOCOL_IPV6 = 12;
// sFlow agents send far fewer; a bound keeps a hostile count from looping long.
const MAX_SAMPLES = 1024;
const MAX_RECORDS = 64;

/** The parts of a sampled packet that a flow needs. */
interface PacketSummary {
  srcAddr: string;
  dstAddr: string;
  protocol: number;
  srcPort: number;
  dstPort: number;
  tcpFlags: number;
  tos: number;
}

export function decodeSflowV5(datagram: Buffer, now: number): DecodedDatagram {
  const reader = new ByteReader(datagram);
  reader.skip(4); // version
  const addressType = reader.u32();
  if (addressType !== 1 && addressType !== 2) throw new FlowDecodeError(`sFlow agent address type ${addressType}`);
  const agent = ipAddress(reader.bytes(addressType === 1 ? 4 : 16));
  const subAgent = reader.u32();
  reader.skip(4 + 4); // sequence, uptime
  const sampleCount = reader.u32();
  if (sampleCount > MAX_SAMPLES) throw new FlowDecodeError(`sFlow datagram with ${sampleCount} samples`);
  const out = emptyDatagram('sflow-v5');
  for (let i = 0; i < sampleCount; i++) {
    const format = reader.u32();
    const sample = reader.sub(reader.u32());
    if (format >>> 12 !== 0) continue; // another enterprise's sample: skipped
    switch (format & 0xfff) {
      case FLOW_SAMPLE:
      case EXPANDED_FLOW_SAMPLE:
        readFlowSample(sample, (format & 0xfff) === EXPANDED_FLOW_SAMPLE, agent, subAgent, now, out);
        break;
      case COUNTER_SAMPLE:
      case EXPANDED_COUNTER_SAMPLE:
        readCounterSample(sample, (format & 0xfff) === EXPANDED_COUNTER_SAMPLE, agent, out);
        break;
      default:
        break;
    }
  }
  return out;
}

function readFlowSample(sample: ByteReader, expanded: boolean, agent: string, subAgent: number, now: number, out: DecodedDatagram): void {
  sample.skip(4); // sequence
  sample.skip(expanded ? 8 : 4); // source id
  const samplingRate = Math.max(1, sample.u32());
  sample.skip(4 + 4); // sample pool, drops
  // Interfaces: the expanded form gives a format word before each; ifIndex in the low 30 bits.
  if (expanded) sample.skip(4);
  const input = sample.u32() & (expanded ? 0xffffffff : 0x3fffffff);
  if (expanded) sample.skip(4);
  const output = sample.u32() & (expanded ? 0xffffffff : 0x3fffffff);
  const recordCount = sample.u32();
  if (recordCount > MAX_RECORDS) throw new FlowDecodeError(`sFlow flow sample with ${recordCount} records`);
  let packet: PacketSummary | undefined;
  let frameLength = 0;
  for (let i = 0; i < recordCount; i++) {
    const format = sample.u32();
    const record = sample.sub(sample.u32());
    if (format >>> 12 !== 0) continue;
    const type = format & 0xfff;
    if (type === RAW_PACKET_HEADER) {
      const headerProtocol = record.u32();
      // The frame's length on the wire (FCS included); 'stripped' only tells what the header lacks.
      frameLength = record.u32();
      record.skip(4);
      const header = record.bytes(record.u32());
      packet ??= parseHeader(headerProtocol, header);
    } else if (type === SAMPLED_IPV4 || type === SAMPLED_IPV6) {
      frameLength ||= record.u32();
      const protocol = record.u32();
      const size = type === SAMPLED_IPV4 ? 4 : 16;
      const srcAddr = ipAddress(record.bytes(size));
      const dstAddr = ipAddress(record.bytes(size));
      const srcPort = record.u32();
      const dstPort = record.u32();
      const tcpFlags = record.u32();
      const tos = record.u32();
      packet ??= { srcAddr, dstAddr, protocol, srcPort, dstPort, tcpFlags: tcpFlags & 0xff, tos: tos & 0xff };
    }
  }
  if (!packet) return; // no IP packet in the sample (e.g. ARP): nothing to rank
  const flow: FlowRecord = {
    exporter: agent,
    observationDomain: subAgent,
    start: now,
    end: now,
    ...packet,
    bytes: frameLength,
    packets: 1,
    samplingRate,
    inputInterface: input,
    outputInterface: output,
  };
  out.flows.push(flow);
}

function readCounterSample(sample: ByteReader, expanded: boolean, agent: string, out: DecodedDatagram): void {
  sample.skip(4); // sequence
  sample.skip(expanded ? 8 : 4); // source id
  const recordCount = sample.u32();
  if (recordCount > MAX_RECORDS) throw new FlowDecodeError(`sFlow counter sample with ${recordCount} records`);
  for (let i = 0; i < recordCount; i++) {
    const format = sample.u32();
    const record = sample.sub(sample.u32());
    if (format !== GENERIC_INTERFACE_COUNTERS) continue;
    const ifIndex = record.u32();
    record.skip(4); // ifType
    const ifSpeed = record.u64();
    record.skip(4 + 4); // direction, status
    const inOctets = record.u64();
    const inUnicast = record.u32();
    const inMulticast = record.u32();
    const inBroadcast = record.u32();
    record.skip(4); // discards
    const inErrors = record.u32();
    record.skip(4); // unknown protocols
    const outOctets = record.u64();
    const outUnicast = record.u32();
    const outMulticast = record.u32();
    const outBroadcast = record.u32();
    record.skip(4);
    const outErrors = record.u32();
    out.counters.push({
      exporter: agent,
      ifIndex,
      ifSpeed,
      inOctets,
      outOctets,
      inPackets: inUnicast + inMulticast + inBroadcast,
      outPackets: outUnicast + outMulticast + outBroadcast,
      inErrors,
      outErrors,
    });
  }
}

/** Addresses and ports from the first bytes of a sampled frame; undefined when not IP. */
export function parseHeader(headerProtocol: number, header: Buffer): PacketSummary | undefined {
  const reader = new ByteReader(header);
  let etherType: number;
  if (headerProtocol === HEADER_PROTOCOL_ETHERNET) {
    reader.skip(12); // MAC addresses
    etherType = reader.u16();
    while (etherType === 0x8100 || etherType === 0x88a8) {
      reader.skip(2); // VLAN tag
      etherType = reader.u16();
    }
  } else if (headerProtocol === HEADER_PROTOCOL_IPV4) etherType = 0x0800;
  else if (headerProtocol === HEADER_PROTOCOL_IPV6) etherType = 0x86dd;
  else return undefined;
  let protocol: number;
  let srcAddr: string;
  let dstAddr: string;
  let tos: number;
  let fragmentOffset = 0;
  if (etherType === 0x0800) {
    const start = reader.offset;
    const versionIhl = reader.u8();
    tos = reader.u8();
    reader.skip(2 + 2); // total length, identification
    fragmentOffset = reader.u16() & 0x1fff;
    reader.skip(1);
    protocol = reader.u8();
    reader.skip(2);
    srcAddr = ipv4(reader.bytes(4));
    dstAddr = ipv4(reader.bytes(4));
    reader.offset = start;
    reader.skip((versionIhl & 0x0f) * 4);
  } else if (etherType === 0x86dd) {
    const first = reader.u32();
    tos = (first >>> 20) & 0xff;
    reader.skip(2);
    protocol = reader.u8();
    reader.skip(1);
    srcAddr = ipAddress(reader.bytes(16));
    dstAddr = ipAddress(reader.bytes(16));
  } else return undefined;
  let srcPort = 0;
  let dstPort = 0;
  let tcpFlags = 0;
  // Ports only in the first fragment, and only when the sampled header reaches them.
  if (fragmentOffset === 0 && (protocol === 6 || protocol === 17 || protocol === 132) && reader.remaining >= 4) {
    srcPort = reader.u16();
    dstPort = reader.u16();
    if (protocol === 6 && reader.remaining >= 10) {
      reader.skip(9);
      tcpFlags = reader.u8();
    }
  }
  return { srcAddr, dstAddr, protocol, srcPort, dstPort, tcpFlags, tos };
}
