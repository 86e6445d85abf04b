// The `collector` process role: UDP listeners for NetFlow/IPFIX and sFlow, decoding every datagram
// on arrival and writing flows in batches (service.flows.batch-size, or every flush-ms). Bad input
// never costs more than itself: a record that cannot be stored is dropped alone at decoding, and a
// batch that PostgreSQL refuses is split until only the refused rows are left out. Memory stays
// bounded: while PostgreSQL is slow or down, flows beyond four batches are dropped instead of
// queued (UDP cannot ask an exporter to slow down), and everything kept per exporter is a bounded
// map. Every drop is counted, globally (CollectorCounters, served at /metrics) and per exporter
// (flow_exporters, GET /flow/exporters).
import dgram from 'node:dgram';
import net, { type AddressInfo } from 'node:net';
import type { Logger } from '../../platform/logger.js';
import type { BoundedMap } from './bounded-map.js';
import { protocolOf, type DatagramProtocol, type ExporterCounters, type FlowDecoder } from './decode/flow-decoder.js';
import { RECORD_DROP_REASONS, type FlowRecord, type InterfaceName, type RecordDropReason } from './decode/flow-record.js';
import type { FlowStore } from './flow-store.js';
import { udpSocketDrops } from './udp-socket-drops.js';

const HOUR_MS = 3_600_000;
const BUFFERED_BATCHES = 4;
// Interface names waiting for the next write (at most a flush interval); more are refused and
// counted (exporters announce them again).
export const PENDING_INTERFACE_NAMES = 10_000;
// Failed writes one batch may take while it is split; what still fails then is dropped whole.
const MAX_FAILED_WRITES = 100;
const COUNTED = ['datagrams', 'flows', 'decodeErrors', 'missingTemplates', 'templatesRefused', 'recordsStored'] as const;

export interface FlowCollectorOptions {
  bindAddress: string;
  netflowPort: number;
  sflowPort: number;
  batchSize: number;
  flushMs: number;
  /** Flows dated before now minus this are dropped (no raw partition would keep them). */
  maxAgeMs: number;
  /** SO_RCVBUF asked of each socket (the kernel caps it at net.core.rmem_max). */
  receiveBufferBytes: number;
  /** Networks whose datagrams are decoded (address or CIDR); empty: any. */
  allowedExporters: string[];
}

export type SocketName = 'netflow' | 'sflow';

export interface DatagramCounts {
  received: number;
  decoded: number;
  malformed: number;
  /** From an address outside service.flows.allowed-exporters: not decoded, nothing kept of the sender. */
  notAllowed: number;
}

/** Monotonic counts since the start; /metrics serves them. */
export interface CollectorCounters {
  datagrams: Record<DatagramProtocol, DatagramCounts>;
  records: {
    /** Flow records read from data sets: each is stored, dropped by a reason, or still queued. */
    received: number;
    stored: number;
    dropped: Record<RecordDropReason, number>;
    /** Options records dropped (a field too wide, a rate or ifIndex out of range). */
    optionsDropped: number;
    /** Data sets skipped: their template was not (or no longer) known. */
    missingTemplates: number;
  };
  /** Batch writes (each part of a split batch counts). */
  writes: { written: number; failed: number };
  interfaceNames: {
    /** Refused while PENDING_INTERFACE_NAMES waited for a write. */
    refused: number;
    /** Deleted from flow_exporter_interfaces to keep an exporter within its limit. */
    removed: number;
  };
  /** Rows deleted from flow_exporters to keep the table within its limit. */
  exportersRemoved: number;
}

const datagramCounts = (): DatagramCounts => ({ received: 0, decoded: 0, malformed: 0, notAllowed: 0 });

/** Errors of some rows, not of the store: a value PostgreSQL refused (SQLSTATE class 22 or 23), or one the encoder could not write. */
function rowError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof RangeError || (typeof code === 'string' && /^(22|23)/.test(code));
}

function allowList(networks: string[]): net.BlockList | undefined {
  if (networks.length === 0) return undefined;
  const list = new net.BlockList();
  for (const network of networks) {
    const [address = '', prefix] = network.split('/');
    const type = net.isIPv6(address) ? 'ipv6' : 'ipv4';
    list.addSubnet(address, prefix === undefined ? (type === 'ipv6' ? 128 : 32) : Number(prefix), type);
  }
  return list;
}

export class FlowCollector {
  private sockets: { name: SocketName; socket: dgram.Socket }[] = [];
  private buffer: FlowRecord[] = [];
  /** The address each buffered flow came from (whose counters its outcome goes to). */
  private sources: string[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  /** A flush waits behind the current write: it will take whatever is buffered when it runs. */
  private flushQueued = false;
  /** Each exporter's counters as last written to flow_exporters (the next write adds the difference); goes with the exporter. */
  private written = new WeakMap<ExporterCounters, ExporterCounters>();
  private interfaceNames = new Map<string, InterfaceName>();
  private readonly allowed?: net.BlockList;
  readonly counters: CollectorCounters = {
    datagrams: { 'netflow-v5': datagramCounts(), 'netflow-v9': datagramCounts(), ipfix: datagramCounts(), 'sflow-v5': datagramCounts(), unknown: datagramCounts() },
    records: { received: 0, stored: 0, dropped: Object.fromEntries(RECORD_DROP_REASONS.map((r) => [r, 0])) as Record<RecordDropReason, number>, optionsDropped: 0, missingTemplates: 0 },
    writes: { written: 0, failed: 0 },
    interfaceNames: { refused: 0, removed: 0 },
    exportersRemoved: 0,
  };
  /** The ports bound, once started. */
  ports?: { netflowPort: number; sflowPort: number };
  /** The receive buffer each socket got (the kernel's figure, which counts its own overhead). */
  readonly receiveBuffers: Partial<Record<SocketName, number>> = {};

  constructor(
    readonly decoder: FlowDecoder,
    private readonly store: FlowStore,
    private readonly options: FlowCollectorOptions,
    private readonly logger: Logger,
  ) {
    this.allowed = allowList(options.allowedExporters);
  }

  /** Binds both ports; resolves with the ports bound (0 in the settings picks free ones). */
  async start(): Promise<{ netflowPort: number; sflowPort: number }> {
    const [netflowPort, sflowPort] = [await this.listen(this.options.netflowPort, 'netflow'), await this.listen(this.options.sflowPort, 'sflow')];
    this.timer = setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
    this.logger.info('flow collector listening', { address: this.options.bindAddress, netflowPort, sflowPort, receiveBuffers: this.receiveBuffers });
    this.ports = { netflowPort, sflowPort };
    return this.ports;
  }

  private listen(port: number, name: SocketName): Promise<number> {
    const socket = dgram.createSocket({ type: this.options.bindAddress.includes(':') ? 'udp6' : 'udp4', reuseAddr: false });
    this.sockets.push({ name, socket });
    socket.on('message', (datagram, remote) => this.receive(datagram, remote.address.replace(/^::ffff:/, ''), name === 'sflow'));
    return new Promise((resolve, reject) => {
      socket.once('error', (error: NodeJS.ErrnoException) =>
        reject(error.code === 'EADDRINUSE' ? new Error(`UDP port ${port} is in use (setting service.flows.${name}-port)`) : error),
      );
      socket.bind(port, this.options.bindAddress, () => {
        socket.removeAllListeners('error');
        socket.on('error', (error) => this.logger.warn('flow socket error', { error }));
        socket.setRecvBufferSize(this.options.receiveBufferBytes);
        // Linux reports twice what it grants (it counts its bookkeeping); less than asked means net.core.rmem_max capped it.
        this.receiveBuffers[name] = socket.getRecvBufferSize();
        if (this.receiveBuffers[name] < this.options.receiveBufferBytes) {
          this.logger.warn('flow socket receive buffer smaller than asked: raise net.core.rmem_max', { socket: name, asked: this.options.receiveBufferBytes, granted: this.receiveBuffers[name] });
        }
        resolve((socket.address() as AddressInfo).port);
      });
    });
  }

  /** What the kernel dropped on each socket since it was opened (its receive buffer was full). */
  socketDrops(): Partial<Record<SocketName, number>> {
    const drops: Partial<Record<SocketName, number>> = {};
    for (const { name, socket } of this.sockets) {
      const { port, family } = socket.address();
      const count = udpSocketDrops(port, family === 'IPv6');
      if (count !== undefined) drops[name] = count;
    }
    return drops;
  }

  /** The bounded maps of the collector's state, by name (their sizes and what they forgot are served at /metrics). */
  get state(): Record<string, BoundedMap<string, unknown>> {
    return { exporters: this.decoder.exporters, templates: this.decoder.templates.templates, sampling: this.decoder.templates.options, addresses: this.store.encoder.addresses };
  }

  get pendingInterfaceNames(): number {
    return this.interfaceNames.size;
  }

  /** One datagram: decoded, dated, buffered. Public for the benchmark, which skips the socket. */
  receive(datagram: Buffer, source: string, sflow: boolean, now = Date.now()): void {
    const counts = this.counters.datagrams[protocolOf(datagram, sflow)];
    counts.received++;
    if (this.allowed && !this.allowed.check(source, net.isIPv6(source) ? 'ipv6' : 'ipv4')) {
      counts.notAllowed++;
      return;
    }
    const outcome = this.decoder.decode(datagram, source, sflow, now);
    if (!outcome.ok) {
      counts.malformed++;
      this.logger.debug('flow datagram dropped', { source, reason: outcome.reason });
      return;
    }
    counts.decoded++;
    const { flows, recordsDropped, optionsDropped, missingTemplates, interfaceNames } = outcome.datagram;
    const records = this.counters.records;
    records.received += flows.length + recordsDropped.fieldWidth + recordsDropped.fieldRange;
    records.dropped.fieldWidth += recordsDropped.fieldWidth;
    records.dropped.fieldRange += recordsDropped.fieldRange;
    records.optionsDropped += optionsDropped;
    records.missingTemplates += missingTemplates;
    for (const name of interfaceNames) {
      const key = `${name.exporter}|${name.ifIndex}`;
      if (this.interfaceNames.size < PENDING_INTERFACE_NAMES || this.interfaceNames.has(key)) this.interfaceNames.set(key, name);
      else this.counters.interfaceNames.refused++;
    }
    let late = 0;
    let overflow = 0;
    for (const flow of flows) {
      if (flow.start < now - this.options.maxAgeMs || flow.end > now + HOUR_MS) late++;
      else if (this.buffer.length >= this.options.batchSize * BUFFERED_BATCHES) overflow++;
      else {
        this.buffer.push(flow);
        this.sources.push(source);
      }
    }
    if (late > 0) this.dropRecords(source, 'outOfWindow', late, now);
    if (overflow > 0) this.dropRecords(source, 'queueOverflow', overflow, now);
    if (this.buffer.length >= this.options.batchSize) void this.flush();
  }

  private dropRecords(source: string, reason: RecordDropReason, count: number, now: number): void {
    this.counters.records.dropped[reason] += count;
    this.decoder.countRecords(source, reason, count, now);
  }

  /** Flows received and not yet written (the benchmark waits on it instead of overflowing). */
  get backlog(): number {
    return this.buffer.length;
  }

  /** Flows that may wait before more are dropped. */
  get capacity(): number {
    return this.options.batchSize * BUFFERED_BATCHES;
  }

  /** Writes what is buffered (one batch at a time); resolves when every write so far is done. */
  flush(): Promise<void> {
    if (this.flushQueued) return this.writing;
    this.flushQueued = true;
    this.writing = this.writing.then(async () => {
      this.flushQueued = false;
      while (this.buffer.length > 0) {
        await this.writeBatch(this.buffer.splice(0, this.options.batchSize), this.sources.splice(0, this.options.batchSize));
      }
      await this.writeExporters();
      const now = Date.now();
      this.decoder.expire(now);
      this.store.encoder.addresses.sweep(now);
    });
    return this.writing;
  }

  /**
   * One batch; when PostgreSQL refuses some of its rows (a value it cannot take), halves are tried
   * in turn until the rows refused are alone: only they are lost. A store that is down fails every
   * part alike, so such a batch is dropped whole at once.
   */
  private async writeBatch(flows: FlowRecord[], sources: string[]): Promise<void> {
    const parts: [number, number][] = [[0, flows.length]];
    let failures = 0;
    let lost = 0;
    let lastError: unknown;
    while (parts.length > 0) {
      const [from, to] = parts.pop() as [number, number];
      try {
        await this.store.write(to - from === flows.length ? flows : flows.slice(from, to));
        this.counters.writes.written++;
        this.counted(sources, from, to, 'stored');
      } catch (error) {
        this.counters.writes.failed++;
        lastError = error;
        if (to - from > 1 && ++failures < MAX_FAILED_WRITES && rowError(error)) {
          const middle = (from + to) >>> 1;
          parts.push([middle, to], [from, middle]);
        } else {
          lost += to - from;
          this.counted(sources, from, to, 'writeFailed');
        }
      }
    }
    if (lost > 0) this.logger.warn('flow records not written', { flows: lost, batch: flows.length, error: lastError });
  }

  /** Counts the outcome of flows [from, to) of a batch, per exporter (their sources run in datagrams). */
  private counted(sources: string[], from: number, to: number, outcome: 'stored' | 'writeFailed'): void {
    if (outcome === 'stored') this.counters.records.stored += to - from;
    else this.counters.records.dropped.writeFailed += to - from;
    const now = Date.now();
    for (let i = from; i < to; ) {
      const source = sources[i] as string;
      let j = i + 1;
      while (j < to && sources[j] === source) j++;
      this.decoder.countRecords(source, outcome, j - i, now);
      i = j;
    }
  }

  /** What each exporter sent since the last write, added to its row (a failed write is tried again next time). */
  private async writeExporters(): Promise<void> {
    const live = [...this.decoder.exporters.entries()].map(([, counters]) => counters);
    const snapshots = live.map((c) => ({ ...c, recordsDropped: { ...c.recordsDropped } }));
    const deltas = snapshots.flatMap((now, i) => {
      // An exporter forgotten and heard again is a new object: it starts from zero.
      const before = this.written.get(live[i] as ExporterCounters);
      const delta = { ...now, recordsDropped: { ...now.recordsDropped } };
      let changed = false;
      for (const k of COUNTED) changed = (delta[k] -= before?.[k] ?? 0) !== 0 || changed;
      for (const r of RECORD_DROP_REASONS) changed = (delta.recordsDropped[r] -= before?.recordsDropped[r] ?? 0) !== 0 || changed;
      return changed ? [delta] : [];
    });
    const names = [...this.interfaceNames.values()];
    if (deltas.length === 0 && names.length === 0) return;
    try {
      const written = await this.store.recordExporters(deltas, names);
      live.forEach((c, i) => this.written.set(c, snapshots[i] as ExporterCounters));
      this.interfaceNames.clear();
      this.counters.exportersRemoved += written.exportersRemoved;
      this.counters.interfaceNames.removed += written.interfaceNamesRemoved;
    } catch (error) {
      this.logger.warn('flow exporters not written', { error });
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.sockets.map(({ socket }) => new Promise<void>((resolve) => socket.close(() => resolve()))));
    this.sockets = [];
    await this.flush();
  }
}
