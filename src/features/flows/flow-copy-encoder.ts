// Flows as PostgreSQL's binary COPY format (the columns of RAW_COLUMNS, in order): the server
// reads fixed-width numbers instead of parsing text timestamps and addresses, and the collector
// writes numbers into one buffer instead of formatting dates. Format: the COPY BINARY section of
// the PostgreSQL manual; timestamps are microseconds since 2000-01-01 UTC, inet is family, bits,
// is_cidr, length, address. The decoder lets through only flows whose values fit their columns
// (storable()); a value that does not still makes the encoder throw, and the store's caller then
// splits the batch.
import type { FlowRecord } from './decode/flow-record.js';
import { BoundedMap, type BoundedMapLimits } from './bounded-map.js';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const TWO_32 = 2 ** 32;
const FIELDS = 15;
// Field count, then each field's length word and value (an IPv6 inet is the widest: 20 bytes).
const MAX_ROW = 2 + FIELDS * 4 + 8 + 8 + 20 + 8 + 8 + 8 + 20 + 20 + 4 + 4 + 2 + 2 + 8 + 8 + 4;
const PGSQL_AF_INET = 2;
const PGSQL_AF_INET6 = 3;

/** The inet value of an address as text (dotted IPv4, or IPv6 as the decoders write it), with its length word. */
function inetField(address: string): Buffer {
  const bytes = address.includes(':') ? ipv6Bytes(address) : ipv4Bytes(address);
  // Length word, family, bits, is_cidr (0), address length, address.
  return Buffer.from([0, 0, 0, 4 + bytes.length, bytes.length === 4 ? PGSQL_AF_INET : PGSQL_AF_INET6, bytes.length * 8, 0, bytes.length, ...bytes]);
}

function ipv4Bytes(text: string): number[] {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`not an IPv4 address: ${text}`);
  return parts;
}

function ipv6Bytes(text: string): number[] {
  const halves = text.split('::');
  if (halves.length > 2) throw new Error(`not an IPv6 address: ${text}`);
  const groups = (part: string | undefined) => (part ? part.split(':') : []).flatMap((g) => {
    if (g.includes('.')) {
      const [a, b, c, d] = ipv4Bytes(g) as [number, number, number, number];
      return [a * 256 + b, c * 256 + d];
    }
    const n = /^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN;
    if (Number.isNaN(n)) throw new Error(`not an IPv6 address: ${text}`);
    return [n];
  });
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const zeros = 8 - head.length - tail.length;
  if (halves.length === 1 ? zeros !== 0 : zeros < 1) throw new Error(`not an IPv6 address: ${text}`);
  return [...head, ...Array<number>(halves.length === 1 ? 0 : zeros).fill(0), ...tail].flatMap((g) => [g >> 8, g & 255]);
}

export class FlowCopyEncoder {
  /**
   * Addresses repeat from flow to flow: their encodings are kept (a bounded map: addresses come from
   * the network). Read without reordering, so the oldest encoding goes first; it is cheap to make
   * again.
   */
  readonly addresses: BoundedMap<string, Buffer>;

  constructor(limits: BoundedMapLimits) {
    this.addresses = new BoundedMap(limits);
  }

  private inet(address: string, now: number): Buffer {
    let field = this.addresses.get(address, now);
    if (!field) this.addresses.set(address, (field = inetField(address)), now);
    return field;
  }

  /** The flows as one COPY ... (FORMAT binary) stream: header, a row per flow, trailer. */
  encode(flows: FlowRecord[], now = Date.now()): Buffer {
    return encodeFlows(flows, (address) => this.inet(address, now));
  }
}

function encodeFlows(flows: FlowRecord[], inetOf: (address: string) => Buffer): Buffer {
  const buffer = Buffer.allocUnsafe(SIGNATURE.length + 8 + flows.length * MAX_ROW + 2);
  let at = SIGNATURE.copy(buffer, 0);
  at = buffer.writeInt32BE(0, at);
  at = buffer.writeInt32BE(0, at);
  // A signed 64-bit integer from a safe JavaScript integer, as two 32-bit words.
  const int64 = (value: number) => {
    const high = Math.floor(value / TWO_32);
    at = buffer.writeInt32BE(8, at);
    at = buffer.writeInt32BE(high, at);
    at = buffer.writeUInt32BE(value - high * TWO_32, at);
  };
  const int32 = (value: number) => {
    at = buffer.writeInt32BE(4, at);
    at = buffer.writeInt32BE(value, at);
  };
  const int16 = (value: number) => {
    at = buffer.writeInt32BE(2, at);
    at = buffer.writeInt16BE(value, at);
  };
  const inet = (address: string) => {
    at += inetOf(address).copy(buffer, at);
  };
  for (const f of flows) {
    at = buffer.writeInt16BE(FIELDS, at);
    int64((f.start - PG_EPOCH_MS) * 1000);
    int64((f.end - PG_EPOCH_MS) * 1000);
    inet(f.exporter);
    int64(f.observationDomain);
    int64(f.inputInterface);
    int64(f.outputInterface);
    inet(f.srcAddr);
    inet(f.dstAddr);
    int32(f.srcPort);
    int32(f.dstPort);
    int16(f.protocol);
    int16(f.tcpFlags);
    int64(Math.round(f.bytes * f.samplingRate));
    int64(Math.round(f.packets * f.samplingRate));
    at = buffer.writeInt32BE(4, at);
    at = buffer.writeFloatBE(f.samplingRate, at);
  }
  at = buffer.writeInt16BE(-1, at);
  return buffer.subarray(0, at);
}
