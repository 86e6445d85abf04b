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

/** Why a record was dropped on its own: at decoding (a field too wide to read, a value its column cannot hold), or by the collector. */
export const RECORD_DROP_REASONS = ['fieldWidth', 'fieldRange', 'outOfWindow', 'queueOverflow', 'writeFailed'] as const;
export type RecordDropReason = (typeof RECORD_DROP_REASONS)[number];
export type DecodeDropReason = Extract<RecordDropReason, 'fieldWidth' | 'fieldRange'>;
/** A reason as metric labels and column names spell it (fieldWidth: field_width). */
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export interface DecodedDatagram {
  protocol: FlowProtocol;
  flows: FlowRecord[];
  /** Flow records read and dropped, each alone: its neighbours are kept. */
  recordsDropped: Record<DecodeDropReason, number>;
  /** Options records dropped for a field too wide or a value out of range (a sampling rate, an ifIndex). */
  optionsDropped: number;
  interfaceNames: InterfaceName[];
  counters: InterfaceCounters[];
  /** Data sets skipped because their template is not (or no longer) known. */
  missingTemplates: number;
  /** Templates refused because their exporter holds its cap. */
  templatesRefused: number;
}

export function emptyDatagram(protocol: FlowProtocol): DecodedDatagram {
  return { protocol, flows: [], recordsDropped: { fieldWidth: 0, fieldRange: 0 }, optionsDropped: 0, interfaceNames: [], counters: [], missingTemplates: 0, templatesRefused: 0 };
}

const MAX_UINT32 = 2 ** 32 - 1;
/** 9999-12-31T23:59:59.999Z: the last instant both a JavaScript date and the COPY encoding of a timestamp hold. */
const LAST_INSTANT_MS = 253_402_300_799_999;

/**
 * Whether every value of a flow fits its column (flow_records): times from 1970 to 9999, ports of
 * 16 bits, a protocol of 8, TCP flags in a smallint, interfaces and domains of 32, and bytes and
 * packets that stay exact integers once multiplied by the sampling rate. A wire field may be wider
 * than its element (v9 sizes are free, sFlow's sampled-IP ports are 32-bit words): its value
 * decides. (Whether a time is within the retention is the collector's check: out of window.)
 */
export function storable(flow: FlowRecord): boolean {
  return (
    flow.start >= 0 && flow.start <= LAST_INSTANT_MS && flow.end >= 0 && flow.end <= LAST_INSTANT_MS &&
    flow.srcPort <= 0xffff && flow.dstPort <= 0xffff && flow.protocol <= 0xff && flow.tcpFlags <= 0x7fff &&
    flow.inputInterface <= MAX_UINT32 && flow.outputInterface <= MAX_UINT32 && flow.observationDomain <= MAX_UINT32 &&
    flow.samplingRate >= 1 && flow.samplingRate <= MAX_UINT32 &&
    flow.bytes * flow.samplingRate <= Number.MAX_SAFE_INTEGER && flow.packets * flow.samplingRate <= Number.MAX_SAFE_INTEGER
  );
}

/** A flow record that cannot be kept: the rest of its datagram is. */
export class RecordRefused extends Error {
  override name = 'RecordRefused';
  constructor(readonly reason: DecodeDropReason) {
    super(reason);
  }
}

export type FlowProtocol = 'netflow-v5' | 'netflow-v9' | 'ipfix' | 'sflow-v5';

/** A datagram that cannot be decoded: truncated, malformed, or of an unknown version. */
export class FlowDecodeError extends Error {
  override name = 'FlowDecodeError';
}
