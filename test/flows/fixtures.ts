// The flow fixtures of test/fixtures/flows (made by capture.sh there from real traffic, real
// exporters and nfdump): datagrams as sent, nfdump's records of the same export, and the pcap.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/project-root.js';

export const FLOW_FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'flows');
export type SoftflowdFixture = 'softflowd-v5' | 'softflowd-v9' | 'softflowd-ipfix' | 'softflowd-v9-sampled' | 'softflowd-ipfix-sampled';
export const SOFTFLOWD_FIXTURES: SoftflowdFixture[] = ['softflowd-v5', 'softflowd-v9', 'softflowd-ipfix', 'softflowd-v9-sampled', 'softflowd-ipfix-sampled'];

/** The datagrams an exporter sent, in order. */
export function datagrams(name: SoftflowdFixture | 'pmacctd-sflow'): Buffer[] {
  return readFileSync(path.join(FLOW_FIXTURES, `${name}.datagrams`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((hex) => Buffer.from(hex, 'hex'));
}

const PROTOCOLS: Record<string, number> = { ICMP: 1, TCP: 6, UDP: 17, ICMP6: 58 };

export interface NfdumpRecord {
  /** Epoch seconds of the first and last packet (nfdump's csv has whole seconds). */
  firstSeen: number;
  lastSeen: number;
  srcAddr: string;
  dstAddr: string;
  srcPort: number;
  dstPort: number;
  protocol: number;
  packets: number;
  bytes: number;
}

/** nfdump's records (`nfdump -o csv`) of one softflowd export, as collected by nfcapd. */
export function nfdumpRecords(name: SoftflowdFixture): NfdumpRecord[] {
  return readFileSync(path.join(FLOW_FIXTURES, `${name}.nfdump.csv`), 'utf8')
    .split('\n')
    .filter((line) => /^\d{4}-/.test(line))
    .map((line) => {
      const f = line.split(',');
      const protocol = PROTOCOLS[f[7]!] ?? Number(f[7]);
      return {
        firstSeen: Date.parse(`${f[0]!.replace(' ', 'T')}Z`) / 1000,
        lastSeen: Date.parse(`${f[1]!.replace(' ', 'T')}Z`) / 1000,
        srcAddr: f[3]!,
        dstAddr: f[4]!,
        srcPort: Number(f[5]),
        // nfdump shows ICMP's type.code where the port is: ports only for TCP and UDP.
        dstPort: protocol === 6 || protocol === 17 ? Number(f[6]) : 0,
        protocol,
        packets: Number(f[11]),
        bytes: Number(f[12]),
      };
    });
}

export interface PcapPacket {
  /** The frame's length on the wire. */
  length: number;
  srcAddr: string;
  dstAddr: string;
}

/** The IP packets of traffic.pcap (Ethernet, libpcap format), read without our decoders. */
export function pcapPackets(): PcapPacket[] {
  const file = readFileSync(path.join(FLOW_FIXTURES, 'traffic.pcap'));
  const packets: PcapPacket[] = [];
  for (let at = 24; at + 16 <= file.length; ) {
    const captured = file.readUInt32LE(at + 8);
    const length = file.readUInt32LE(at + 12);
    const frame = file.subarray(at + 16, at + 16 + captured);
    at += 16 + captured;
    const etherType = frame.readUInt16BE(12);
    if (etherType === 0x0800) packets.push({ length, srcAddr: [...frame.subarray(26, 30)].join('.'), dstAddr: [...frame.subarray(30, 34)].join('.') });
    if (etherType === 0x86dd) packets.push({ length, srcAddr: v6(frame.subarray(22, 38)), dstAddr: v6(frame.subarray(38, 54)) });
  }
  return packets;
}

/** IPv6 text through the URL parser, which compresses as RFC 5952 says. */
function v6(bytes: Buffer): string {
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** A field of an IPFIX template: element id and length in bytes. */
export interface IpfixField {
  id: number;
  length: number;
}

/** IPFIX elements the tests build templates of. */
export const IE = {
  octetDeltaCount: 1, packetDeltaCount: 2, protocolIdentifier: 4, sourceTransportPort: 7, sourceIPv4Address: 8, ingressInterface: 10,
  destinationTransportPort: 11, destinationIPv4Address: 12, samplingInterval: 34, samplerId: 48, interfaceName: 82,
  flowStartMilliseconds: 152, flowEndMilliseconds: 153,
} as const;

/** A set: its id, its length, its body padded to 4 bytes. */
function ipfixSet(id: number, body: Buffer): Buffer {
  const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
  const header = Buffer.alloc(4);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(4 + padded.length, 2);
  return Buffer.concat([header, padded]);
}

const u16 = (value: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value);
  return b;
};

/** A template set (id 2), or an options template set (id 3) whose first `scope` fields are scopes. */
export function ipfixTemplateSet(templates: { id: number; fields: IpfixField[]; scope?: number }[]): Buffer {
  const options = templates.some((t) => t.scope !== undefined);
  return ipfixSet(options ? 3 : 2, Buffer.concat(templates.flatMap((t) => [
    u16(t.id), u16(t.fields.length), ...(options ? [u16(t.scope ?? 0)] : []), ...t.fields.flatMap((f) => [u16(f.id), u16(f.length)]),
  ])));
}

/** A value as a field of `length` bytes: an unsigned integer (big-endian) or the bytes given. */
function fieldValue(value: number | bigint | Buffer | string, length: number): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value.split('.').map(Number));
  const b = Buffer.alloc(length);
  let v = BigInt(value);
  for (let i = length - 1; i >= 0; i--, v >>= 8n) b[i] = Number(v & 0xffn);
  return b;
}

/** A data set of records through a template's fields; dotted text is an IPv4 address. */
export function ipfixDataSet(templateId: number, fields: IpfixField[], records: (number | bigint | Buffer | string)[][]): Buffer {
  return ipfixSet(templateId, Buffer.concat(records.flatMap((r) => r.map((value, i) => fieldValue(value, fields[i]!.length)))));
}

/** An IPFIX message of one observation domain. */
export function ipfixMessage(domain: number, sets: Buffer[], exportTime = Date.now()): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt16BE(10, 0);
  header.writeUInt32BE(Math.floor(exportTime / 1000), 4);
  header.writeUInt32BE(domain, 12);
  const message = Buffer.concat([header, ...sets]);
  message.writeUInt16BE(message.length, 2);
  return message;
}
