// Bounds-checked big-endian reads over a datagram: every read past the end throws a
// FlowDecodeError instead of returning garbage, so a truncated datagram is refused as a whole.
import { FlowDecodeError } from './flow-record.js';

export class ByteReader {
  constructor(
    readonly buffer: Buffer,
    public offset = 0,
    readonly end = buffer.length,
  ) {
    if (end > buffer.length) throw new FlowDecodeError(`length ${end} is beyond the datagram (${buffer.length} bytes)`);
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private take(length: number): number {
    if (length < 0 || this.offset + length > this.end) {
      throw new FlowDecodeError(`truncated: wanted ${length} bytes at offset ${this.offset}, ${this.remaining} left`);
    }
    const at = this.offset;
    this.offset += length;
    return at;
  }

  u8(): number {
    return this.buffer.readUInt8(this.take(1));
  }

  u16(): number {
    return this.buffer.readUInt16BE(this.take(2));
  }

  u32(): number {
    return this.buffer.readUInt32BE(this.take(4));
  }

  /** A 64-bit counter as a number (exact up to 2^53, ample for bytes of one flow). */
  u64(): number {
    return Number(this.buffer.readBigUInt64BE(this.take(8)));
  }

  bytes(length: number): Buffer {
    const at = this.take(length);
    return this.buffer.subarray(at, at + length);
  }

  skip(length: number): void {
    this.take(length);
  }

  /** A reader over the next `length` bytes; this reader moves past them. */
  sub(length: number): ByteReader {
    const at = this.take(length);
    return new ByteReader(this.buffer, at, at + length);
  }
}

/** An unsigned big-endian integer of 1 to 8 bytes (NetFlow v9 and IPFIX fields vary in width). */
export function readUnsigned(bytes: Buffer): number {
  let value = 0;
  for (const byte of bytes) value = value * 256 + byte;
  return value;
}

export function ipv4(bytes: Buffer): string {
  return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
}

/** An IPv6 address in its compressed text form (RFC 5952). */
export function ipv6(bytes: Buffer): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i));
  // The longest run of two or more zero groups becomes '::'.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

export function ipAddress(bytes: Buffer): string {
  if (bytes.length === 4) return ipv4(bytes);
  if (bytes.length === 16) return ipv6(bytes);
  throw new FlowDecodeError(`an address of ${bytes.length} bytes`);
}

/**
 * Epoch ms of an uptime stamp (ms since the exporter booted), from the header's uptime and clock.
 * The difference is taken modulo 2^32 as a signed number: uptime counters wrap after 49.7 days, and
 * a flow stamped just before a wrap is a little older than the header, not 49 days younger.
 */
export function uptimeToEpoch(stamp: number, headerUptime: number, headerEpochMs: number): number {
  return headerEpochMs + ((stamp - headerUptime) | 0);
}
