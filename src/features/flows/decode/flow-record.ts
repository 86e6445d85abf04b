// What the decoders produce: one shape for a flow whatever protocol carried it, and the facts an
// exporter tells about itself (interface names, sampling, interface counters).

/** One unidirectional flow as an exporter reported it (bytes and packets as counted, unscaled). */
export interface FlowRecord {
  /** Address of the exporter (the datagram's source, or the sFlow agent address). */
  exporter: string;
  /** NetFlow v9 source id, IPFIX observation domain, sFlow sub-agent id; 0 for v5. */
  observationDomain: number;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  srcAddr: string;
  dstAddr: string;
  srcPort: number;
  dstPort: number;
  protocol: number;
  tcpFlags: number;
  tos: number;
  bytes: number;
  packets: number;
  /** 1 in N packets were sampled: bytes × samplingRate estimates the real traffic. */
  samplingRate: number;
  inputInterface: number;
  outputInterface: number;
}

/** An interface name learned from an options record (NetFlow v9/IPFIX IE 82). */
export interface InterfaceName {
  exporter: string;
  ifIndex: number;
  name: string;
}

/** sFlow generic interface counters (counter sample record 0:1). */
export interface InterfaceCounters {
  exporter: string;
  ifIndex: number;
  ifSpeed: number;
  inOctets: number;
  outOctets: number;
  inPackets: number;
  outPackets: number;
  inErrors: number;
  outErrors: number;
}

export interface DecodedDatagram {
  protocol: FlowProtocol;
  flows: FlowRecord[];
  interfaceNames: InterfaceName[];
  counters: InterfaceCounters[];
  /** Data sets skipped because their template is not (or no longer) known. */
  missingTemplates: number;
  /** Templates refused because their exporter holds its cap. */
  templatesRefused: number;
}

export function emptyDatagram(protocol: FlowProtocol): DecodedDatagram {
  return { protocol, flows: [], interfaceNames: [], counters: [], missingTemplates: 0, templatesRefused: 0 };
}

export type FlowProtocol = 'netflow-v5' | 'netflow-v9' | 'ipfix' | 'sflow-v5';

/** A datagram that cannot be decoded: truncated, malformed, or of an unknown version. */
export class FlowDecodeError extends Error {
  override name = 'FlowDecodeError';
}
