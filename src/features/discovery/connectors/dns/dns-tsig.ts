// TSIG (RFC 8945) with HMAC-SHA256: a request signed, and the answers of a zone transfer verified
// message by message: the first against the request's MAC and the full TSIG variables, each later
// signed one against the previous MAC, the unsigned messages since (at most 99) and the timers
// only. A transfer whose last message is not signed is not verified.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CLASS_ANY, canonicalNameWire, DnsFormatError, RR_TYPE, TSIG_ERROR_NAMES, type DnsMessage } from './dns-message.js';

export const TSIG_ALGORITHM = 'hmac-sha256';
const FUDGE_SECONDS = 300;
const MAX_UNSIGNED_IN_A_ROW = 99;

export interface TsigKey {
  name: string;
  secret: Buffer;
}

/** The server refused the key (BADKEY, BADSIG, BADTIME: RFC 8945 §5.2), or answered a signed request unsigned. */
export class TsigRefused extends Error {}
/** An answer whose signature is missing or does not verify. */
export class TsigInvalid extends Error {}

const u16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
};
const u48 = (n: number) => {
  const b = Buffer.alloc(6);
  b.writeUIntBE(n, 0, 6);
  return b;
};
const hmac = (key: TsigKey, parts: Buffer[]) => {
  const h = createHmac('sha256', key.secret);
  for (const part of parts) h.update(part);
  return h.digest();
};

/** The TSIG variables (RFC 8945 §4.3.3): key name, class, TTL, algorithm, time, fudge, error, other. */
function variables(keyName: string, timeSigned: number, fudge: number, error: number, other: Buffer): Buffer {
  return Buffer.concat([canonicalNameWire(keyName), u16(CLASS_ANY), u32(0), canonicalNameWire(TSIG_ALGORITHM), u48(timeSigned), u16(fudge), u16(error), u16(other.length), other]);
}

/** The request with its TSIG record appended, and the MAC the first answer is verified against. */
export function signRequest(request: Buffer, key: TsigKey, now: number = Math.floor(Date.now() / 1000)): { signed: Buffer; mac: Buffer } {
  const mac = hmac(key, [request, variables(key.name, now, FUDGE_SECONDS, 0, Buffer.alloc(0))]);
  const rdata = Buffer.concat([canonicalNameWire(TSIG_ALGORITHM), u48(now), u16(FUDGE_SECONDS), u16(mac.length), mac, request.subarray(0, 2), u16(0), u16(0)]);
  const record = Buffer.concat([canonicalNameWire(key.name), u16(RR_TYPE.TSIG), u16(CLASS_ANY), u32(0), u16(rdata.length), rdata]);
  const signed = Buffer.concat([request, record]);
  signed.writeUInt16BE(signed.readUInt16BE(10) + 1, 10);
  return { signed, mac };
}

/** Verifies the messages of one answer (a zone transfer's, in order) to a request signed with `key`. */
export class TsigVerifier {
  private previousMac: Buffer;
  private first = true;
  private unsigned: Buffer[] = [];

  constructor(
    private readonly key: TsigKey,
    requestMac: Buffer,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.previousMac = requestMac;
  }

  /** Whether every message so far is covered by a verified signature. */
  get settled(): boolean {
    return this.unsigned.length === 0;
  }

  /** Takes the next message; throws TsigRefused or TsigInvalid when it may not be believed. */
  verify(raw: Buffer, message: DnsMessage): void {
    const tsig = message.tsig;
    if (!tsig) {
      // The first answer must be signed, or say why not (a refusal of the key comes signed or with a TSIG error).
      if (this.first) throw new TsigRefused(`the server answered the signed request unsigned (${message.rcode === 9 ? 'NOTAUTH: it does not know the key' : `rcode ${message.rcode}`})`);
      this.unsigned.push(raw);
      if (this.unsigned.length > MAX_UNSIGNED_IN_A_ROW) throw new TsigInvalid(`more than ${MAX_UNSIGNED_IN_A_ROW} messages in a row are unsigned`);
      return;
    }
    const { data } = tsig;
    if (data.error !== 0) throw new TsigRefused(`the server refused the key: ${TSIG_ERROR_NAMES[data.error] ?? `TSIG error ${data.error}`}`);
    if (tsig.keyName !== this.key.name.toLowerCase().replace(/\.$/, '') || data.algorithm !== TSIG_ALGORITHM) throw new TsigInvalid('the answer is signed with another key or algorithm');
    // The message as signed: without its TSIG record, one fewer additional record, its original id.
    const stripped = Buffer.from(raw.subarray(0, tsig.offset));
    if (stripped.length < 12) throw new DnsFormatError('a message shorter than its header');
    stripped.writeUInt16BE(data.originalId, 0);
    stripped.writeUInt16BE(stripped.readUInt16BE(10) - 1, 10);
    const tail = this.first ? variables(this.key.name, data.timeSigned, data.fudge, data.error, data.other) : Buffer.concat([u48(data.timeSigned), u16(data.fudge)]);
    const expected = hmac(this.key, [u16(this.previousMac.length), this.previousMac, ...this.unsigned, stripped, tail]);
    if (data.mac.length !== expected.length || !timingSafeEqual(data.mac, expected)) throw new TsigInvalid('the signature of an answer does not verify');
    if (Math.abs(this.now() - data.timeSigned) > data.fudge) throw new TsigInvalid(`an answer was signed at a time more than ${data.fudge} s from this worker's clock`);
    this.previousMac = data.mac;
    this.unsigned = [];
    this.first = false;
  }
}
