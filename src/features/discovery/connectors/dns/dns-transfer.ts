// A zone transfer (AXFR, RFC 5936) over TCP: one connection per zone, the request signed with a
// TSIG key when one is given, the answer read message by message (each behind its 2-octet length)
// until the zone's SOA comes again. Bounded: the connect and each wait for data by the time-out, the
// whole by the host's deadline, the records by maxRecords and the octets by MAX_TRANSFER_OCTETS.
// A transfer cut short answers the records read (those a signature covers, with a key), for the
// probe of their addresses; one that fails to parse or verify answers none.
import { randomInt } from 'node:crypto';
import net from 'node:net';
import { networkErrorCode } from '../../shared-scan-errors.js';
import { decodeMessage, DnsFormatError, encodeQuery, RCODE_NAMES, RR_TYPE, type DnsRecord } from './dns-message.js';
import type { DnsErrorCode } from './dns-errors.js';
import { signRequest, TsigInvalid, TsigRefused, TsigVerifier, type TsigKey } from './dns-tsig.js';

/** The octets one transfer may bring (a zone of a million short records is about 40 MB). */
export const MAX_TRANSFER_OCTETS = 64 * 1024 * 1024;

export interface TransferOptions {
  host: string;
  port: number;
  /** The connect, and each wait for the next octets. */
  timeoutMs: number;
  deadline: number;
  maxRecords: number;
  key?: TsigKey;
}

export interface TransferFailure {
  code: DnsErrorCode;
  message: string;
}

export interface ZoneTransfer {
  zone: string;
  /** The zone's records (its closing SOA left out); those read before a failure, if any. */
  records: DnsRecord[];
  /** Every record was read (the closing SOA came, none was left out). */
  complete: boolean;
  failure?: TransferFailure;
}

/** Reads the TCP stream's messages (a 2-octet length, then the message) as they come. */
class MessageReader {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended: Error | 'closed' | undefined;
  octets = 0;

  constructor(socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.octets += chunk.length;
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake();
    });
    socket.on('end', () => this.finish('closed'));
    socket.on('close', () => this.finish('closed'));
    socket.on('error', (error) => this.finish(error));
  }

  private finish(reason: Error | 'closed') {
    this.ended ??= reason;
    this.wake();
  }

  private wake() {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  /** The next message, or the reason none comes: 'closed', 'timeout' or the socket's error. */
  async next(timeoutMs: number): Promise<Buffer | 'closed' | 'timeout' | Error> {
    for (;;) {
      if (this.buffered.length >= 2) {
        const length = this.buffered.readUInt16BE(0);
        if (this.buffered.length >= 2 + length) {
          const message = this.buffered.subarray(2, 2 + length);
          this.buffered = this.buffered.subarray(2 + length);
          return message;
        }
      }
      if (this.ended) return this.ended;
      const came = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
        this.waiting = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      if (!came) return 'timeout';
    }
  }
}

function connect(host: string, port: number, timeoutMs: number): Promise<net.Socket | TransferFailure> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ code: 'CONNECTION_TIMEOUT', message: `${host}:${port} did not answer within ${timeoutMs} ms.` });
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ code: networkErrorCode(error.code) ?? 'CONNECTION_REFUSED', message: `${host}:${port}: ${error.code ?? error.message}.` });
    });
  });
}

/** Transfers one zone. Never throws for what the server or the network does: a failure is in the answer. */
export async function transferZone(zone: string, options: TransferOptions): Promise<ZoneTransfer> {
  const { host, port, timeoutMs, deadline, maxRecords, key } = options;
  const wait = () => Math.min(timeoutMs, deadline - Date.now());
  const fail = (code: DnsErrorCode, message: string, records: DnsRecord[] = []): ZoneTransfer => ({ zone, records, complete: false, failure: { code, message } });
  const id = randomInt(0, 0x10000);
  let request: Buffer;
  try {
    request = encodeQuery(id, zone, RR_TYPE.AXFR);
  } catch (error) {
    return fail('DNS_MALFORMED_ANSWER', `The zone name ${zone} cannot be asked for: ${(error as Error).message}.`);
  }
  const signing = key ? signRequest(request, key) : undefined;
  const verifier = key && signing ? new TsigVerifier(key, signing.mac) : undefined;
  const socket = await connect(host, port, Math.max(1, wait()));
  if (!(socket instanceof net.Socket)) return { zone, records: [], complete: false, failure: socket };
  const reader = new MessageReader(socket);
  const payload = signing?.signed ?? request;
  socket.write(Buffer.concat([Buffer.from([payload.length >> 8, payload.length & 0xff]), payload]));

  const records: DnsRecord[] = [];
  // The records a verified signature covers (all of them without a key).
  let believed = 0;
  let soaSeen = false;
  try {
    for (;;) {
      if (Date.now() >= deadline) return fail('HOST_TIMEOUT', `The per-host time-out ended during the transfer of ${zone}; ${believed} records were read.`, records.slice(0, believed));
      const next = await reader.next(wait());
      if (!(next instanceof Buffer)) {
        const why = next === 'timeout' ? `no data came for ${timeoutMs} ms` : next === 'closed' ? 'the server closed the connection' : ((next as NodeJS.ErrnoException).code ?? 'a socket error');
        return fail('DNS_TRANSFER_INCOMPLETE', `The transfer of ${zone} stopped before its end: ${why}; ${believed} records were read.`, records.slice(0, believed));
      }
      if (reader.octets > MAX_TRANSFER_OCTETS) return fail('DNS_ZONE_TRUNCATED', `The transfer of ${zone} brought more than ${MAX_TRANSFER_OCTETS} octets; ${believed} records were read.`, records.slice(0, believed));
      const message = decodeMessage(next);
      if (!message.response || message.id !== id) throw new DnsFormatError('an answer to another query');
      if (message.rcode !== 0 && !(verifier && message.tsig && message.tsig.data.error !== 0)) {
        if (verifier && message.rcode === 9) throw new TsigRefused(`the server answered NOTAUTH to the signed request`);
        return fail('DNS_TRANSFER_REFUSED', `${host}:${port} answered ${RCODE_NAMES[message.rcode] ?? `rcode ${message.rcode}`} to the transfer of ${zone}.`);
      }
      verifier?.verify(next, message);
      let ended = false;
      for (const record of message.answers) {
        if (record.data.type === 'SOA') {
          if (!soaSeen) {
            if (record.name !== zone.toLowerCase().replace(/\.$/, '')) throw new DnsFormatError(`the transfer begins with the SOA of ${record.name}`);
            soaSeen = true;
          } else {
            ended = true;
            break;
          }
        } else if (!soaSeen) throw new DnsFormatError('the transfer does not begin with the SOA');
        if (records.length >= maxRecords) {
          believed = verifier ? believed : records.length;
          return fail('DNS_ZONE_TRUNCATED', `${zone} brought more records than the ${maxRecords} that settings.DNS.maxRecords left for it.`, records.slice(0, believed));
        }
        records.push(record);
      }
      if (!verifier || verifier.settled) believed = records.length;
      if (ended) {
        if (!believed || believed < records.length) throw new TsigInvalid('the last message of the transfer is not signed');
        return { zone, records, complete: true };
      }
    }
  } catch (error) {
    if (error instanceof TsigRefused) return fail('DNS_TSIG_REFUSED', `${host}:${port} refused the TSIG key "${key?.name}" for ${zone}: ${error.message}.`);
    if (error instanceof TsigInvalid) return fail('DNS_TSIG_UNVERIFIED', `An answer of ${host}:${port} for ${zone} could not be verified: ${error.message}.`);
    if (error instanceof DnsFormatError) return fail('DNS_MALFORMED_ANSWER', `${host}:${port} answered the transfer of ${zone} with a malformed message: ${error.message}.`);
    throw error;
  } finally {
    socket.destroy();
  }
}
