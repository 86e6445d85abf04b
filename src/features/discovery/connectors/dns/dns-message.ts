// The few parts of the DNS wire format (RFC 1035, 3596, 8945) that the DNS connector needs: a query
// (AXFR) encoded, and the answers decoded: A, AAAA, CNAME, PTR, NS, SOA and TSIG records, others
// kept as their type only. Answers are untrusted input: every length is checked against the
// message, a name is at most 255 octets of labels of at most 63, and a compression pointer may only
// point back before the label that holds it (so no pointer chain can loop). Anything else is a
// DnsFormatError, never a crash.

export const RR_TYPE = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, AAAA: 28, TSIG: 250, AXFR: 252 } as const;
export const CLASS_IN = 1;
export const CLASS_ANY = 255;

/** A response code (RFC 1035, 2136, 8945): the names the connector's messages use. */
export const RCODE_NAMES: Readonly<Record<number, string>> = { 0: 'NOERROR', 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED', 9: 'NOTAUTH', 10: 'NOTZONE' };
/** TSIG errors (RFC 8945 §5.2). */
export const TSIG_ERROR_NAMES: Readonly<Record<number, string>> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC' };

const MAX_NAME_OCTETS = 255;
const MAX_LABEL = 63;
const HEADER = 12;

export class DnsFormatError extends Error {}

export interface TsigData {
  algorithm: string;
  /** Seconds since the epoch (48 bits). */
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
}

export type RecordData =
  | { type: 'A' | 'AAAA'; address: string }
  | { type: 'CNAME' | 'PTR' | 'NS'; target: string }
  | { type: 'SOA'; mname: string; rname: string; serial: number }
  | { type: 'TSIG'; tsig: TsigData }
  | { type: 'OTHER'; code: number };

export interface DnsRecord {
  /** Lower case, without the final dot; octets other than letters, digits, - and _ as \DDD. */
  name: string;
  class: number;
  ttl: number;
  data: RecordData;
}

export interface DnsMessage {
  id: number;
  /** The QR bit: an answer. */
  response: boolean;
  opcode: number;
  rcode: number;
  questions: { name: string; type: number }[];
  answers: DnsRecord[];
  /** The TSIG record, the last of the additional section, and where it starts in the message. */
  tsig?: { keyName: string; data: TsigData; offset: number };
}

/** A name's labels as octets, for the wire (the name is taken as given: letters, digits, -, _ and dots). */
export function nameToWire(name: string): Buffer {
  const trimmed = name.replace(/\.$/, '');
  const labels = trimmed === '' ? [] : trimmed.split('.');
  const parts: Buffer[] = [];
  for (const label of labels) {
    const octets = Buffer.from(label, 'ascii');
    if (octets.length === 0 || octets.length > MAX_LABEL || !/^[A-Za-z0-9_*-]+$/.test(label)) throw new DnsFormatError(`"${name.slice(0, 300)}" is not a DNS name`);
    parts.push(Buffer.from([octets.length]), octets);
  }
  parts.push(Buffer.from([0]));
  const wire = Buffer.concat(parts);
  if (wire.length > MAX_NAME_OCTETS) throw new DnsFormatError(`"${name.slice(0, 300)}" is longer than 255 octets`);
  return wire;
}

/** The canonical form of a name for TSIG: lower case, uncompressed. */
export const canonicalNameWire = (name: string) => nameToWire(name.toLowerCase());

/** A query for one name and type, without the length prefix of TCP. */
export function encodeQuery(id: number, name: string, type: number, recursionDesired = false): Buffer {
  const header = Buffer.alloc(HEADER);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(recursionDesired ? 0x0100 : 0, 2);
  header.writeUInt16BE(1, 4);
  const question = Buffer.alloc(4);
  question.writeUInt16BE(type, 0);
  question.writeUInt16BE(CLASS_IN, 2);
  return Buffer.concat([header, nameToWire(name), question]);
}

function labelText(octets: Buffer): string {
  let text = '';
  for (const octet of octets) {
    const c = String.fromCharCode(octet).toLowerCase();
    text += /[a-z0-9_-]/.test(c) ? c : `\\${String(octet).padStart(3, '0')}`;
  }
  return text;
}

/** Reads a possibly compressed name at `offset`; answers it and the offset after it where it started. */
export function readName(message: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let octets = 1;
  let position = offset;
  let next: number | undefined;
  // A pointer must point before the label it is in: each jump goes strictly back, so the walk ends.
  let floor = offset;
  for (;;) {
    if (position >= message.length) throw new DnsFormatError('a name runs past the end of the message');
    const length = message[position] as number;
    if ((length & 0xc0) === 0xc0) {
      if (position + 1 >= message.length) throw new DnsFormatError('a compression pointer runs past the end of the message');
      const target = ((length & 0x3f) << 8) | (message[position + 1] as number);
      if (target >= floor) throw new DnsFormatError('a compression pointer does not point back');
      next ??= position + 2;
      floor = target;
      position = target;
      continue;
    }
    if (length & 0xc0) throw new DnsFormatError('an unknown label type');
    if (length === 0) {
      next ??= position + 1;
      break;
    }
    if (position + 1 + length > message.length) throw new DnsFormatError('a label runs past the end of the message');
    octets += length + 1;
    if (octets > MAX_NAME_OCTETS) throw new DnsFormatError('a name is longer than 255 octets');
    labels.push(labelText(message.subarray(position + 1, position + 1 + length)));
    position += 1 + length;
  }
  return { name: labels.join('.'), next };
}

function need(message: Buffer, offset: number, length: number, what: string): void {
  if (offset + length > message.length) throw new DnsFormatError(`${what} runs past the end of the message`);
}

function ipv6(octets: Buffer): string {
  const groups = Array.from({ length: 8 }, (_, i) => octets.readUInt16BE(i * 2).toString(16));
  // The URL parser writes an IPv6 address in its canonical form (RFC 5952).
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

function readData(message: Buffer, type: number, start: number, length: number): RecordData {
  const end = start + length;
  const nameWithin = (offset: number) => {
    const read = readName(message, offset);
    if (read.next > end) throw new DnsFormatError('a name runs past its record');
    return read;
  };
  switch (type) {
    case RR_TYPE.A:
      if (length !== 4) throw new DnsFormatError('an A record is not 4 octets');
      return { type: 'A', address: [...message.subarray(start, end)].join('.') };
    case RR_TYPE.AAAA:
      if (length !== 16) throw new DnsFormatError('an AAAA record is not 16 octets');
      return { type: 'AAAA', address: ipv6(message.subarray(start, end)) };
    case RR_TYPE.CNAME:
    case RR_TYPE.PTR:
    case RR_TYPE.NS: {
      const { name, next } = nameWithin(start);
      if (next !== end) throw new DnsFormatError('a record holds more than its name');
      return { type: type === RR_TYPE.CNAME ? 'CNAME' : type === RR_TYPE.PTR ? 'PTR' : 'NS', target: name };
    }
    case RR_TYPE.SOA: {
      const mname = nameWithin(start);
      const rname = nameWithin(mname.next);
      if (rname.next + 20 !== end) throw new DnsFormatError('an SOA record is not its names and five numbers');
      return { type: 'SOA', mname: mname.name, rname: rname.name, serial: message.readUInt32BE(rname.next) };
    }
    case RR_TYPE.TSIG: {
      // The algorithm name is never compressed (RFC 8945 §4.2), but reading it as any name is safe.
      const algorithm = nameWithin(start);
      let p = algorithm.next;
      if (p + 10 > end) throw new DnsFormatError('a TSIG record is cut short');
      const timeSigned = message.readUIntBE(p, 6);
      const fudge = message.readUInt16BE(p + 6);
      const macSize = message.readUInt16BE(p + 8);
      p += 10;
      if (p + macSize + 6 > end) throw new DnsFormatError('a TSIG MAC runs past its record');
      const mac = Buffer.from(message.subarray(p, p + macSize));
      p += macSize;
      const originalId = message.readUInt16BE(p);
      const error = message.readUInt16BE(p + 2);
      const otherLength = message.readUInt16BE(p + 4);
      p += 6;
      if (p + otherLength !== end) throw new DnsFormatError('a TSIG record is not as long as it says');
      return { type: 'TSIG', tsig: { algorithm: algorithm.name, timeSigned, fudge, mac, originalId, error, other: Buffer.from(message.subarray(p, end)) } };
    }
    default:
      return { type: 'OTHER', code: type };
  }
}

function readRecord(message: Buffer, offset: number): { record: DnsRecord; next: number } {
  const { name, next } = readName(message, offset);
  need(message, next, 10, 'a record header');
  const type = message.readUInt16BE(next);
  const rrClass = message.readUInt16BE(next + 2);
  const ttl = message.readUInt32BE(next + 4);
  const length = message.readUInt16BE(next + 8);
  const start = next + 10;
  need(message, start, length, 'a record');
  return { record: { name, class: rrClass, ttl, data: readData(message, type, start, length) }, next: start + length };
}

/** A message as the connector reads it: header, questions, answers, and a final TSIG record if any. */
export function decodeMessage(message: Buffer): DnsMessage {
  if (message.length < HEADER) throw new DnsFormatError('a message shorter than its header');
  const flags = message.readUInt16BE(2);
  const counts = [4, 6, 8, 10].map((at) => message.readUInt16BE(at)) as [number, number, number, number];
  let offset = HEADER;
  const questions: DnsMessage['questions'] = [];
  for (let i = 0; i < counts[0]; i++) {
    const { name, next } = readName(message, offset);
    need(message, next, 4, 'a question');
    questions.push({ name, type: message.readUInt16BE(next) });
    offset = next + 4;
  }
  const answers: DnsRecord[] = [];
  let tsig: DnsMessage['tsig'];
  const total = counts[1] + counts[2] + counts[3];
  for (let i = 0; i < total; i++) {
    const start = offset;
    const { record, next } = readRecord(message, offset);
    offset = next;
    if (record.data.type === 'TSIG') {
      if (i !== total - 1 || i < counts[1] + counts[2]) throw new DnsFormatError('a TSIG record that is not the last of the additional section');
      tsig = { keyName: record.name, data: record.data.tsig, offset: start };
    } else if (i < counts[1]) answers.push(record);
  }
  if (offset !== message.length) throw new DnsFormatError('octets after the last record');
  return { id: message.readUInt16BE(0), response: (flags & 0x8000) !== 0, opcode: (flags >> 11) & 0xf, rcode: flags & 0xf, questions, answers, ...(tsig ? { tsig } : {}) };
}
