// The `collector` process role: UDP listeners for NetFlow/IPFIX and sFlow, decoding every datagram
// on arrival and writing flows in batches (service.flows.batch-size, or every flush-ms). Memory
// stays bounded: while PostgreSQL is slow or down, flows beyond four batches are dropped and
// counted instead of queued (UDP cannot ask an exporter to slow down), and a failed batch is
// logged and dropped (flows are measurements, not records someone typed: a gap is better than an
// unbounded backlog).
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../platform/logger.js';
import type { ExporterCounters, FlowDecoder } from './decode/flow-decoder.js';
import type { FlowRecord, InterfaceName } from './decode/flow-record.js';
import type { FlowStore } from './flow-store.js';

const HOUR_MS = 3_600_000;
const BUFFERED_BATCHES = 4;
// Interface names waiting for the next write; more are dropped (exporters announce them again).
const PENDING_INTERFACE_NAMES = 10_000;
const COUNTED = ['datagrams', 'flows', 'decodeErrors', 'missingTemplates', 'templatesRefused'] as const;

export interface FlowCollectorOptions {
  bindAddress: string;
  netflowPort: number;
  sflowPort: number;
  batchSize: number;
  flushMs: number;
  /** Flows dated before now minus this are dropped (no raw partition would keep them). */
  maxAgeMs: number;
}

export interface CollectorCounters {
  received: number;
  stored: number;
  /** Dropped: dated outside [now - raw retention, now + 1 h] (an exporter with a wrong clock). */
  outOfWindow: number;
  /** Dropped: the buffer was full (PostgreSQL too slow or down). */
  overflow: number;
  /** Dropped: their batch failed to write. */
  writeFailed: number;
}

export class FlowCollector {
  private sockets: dgram.Socket[] = [];
  private buffer: FlowRecord[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  /** A flush waits behind the current write: it will take whatever is buffered when it runs. */
  private flushQueued = false;
  /** The exporters' counters as last written to flow_exporters (the next write adds the difference). */
  private written = new Map<string, ExporterCounters>();
  private interfaceNames = new Map<string, InterfaceName>();
  readonly counters: CollectorCounters = { received: 0, stored: 0, outOfWindow: 0, overflow: 0, writeFailed: 0 };
  /** The ports bound, once started. */
  ports?: { netflowPort: number; sflowPort: number };

  constructor(
    readonly decoder: FlowDecoder,
    private readonly store: FlowStore,
    private readonly options: FlowCollectorOptions,
    private readonly logger: Logger,
  ) {}

  /** Binds both ports; resolves with the ports bound (0 in the settings picks free ones). */
  async start(): Promise<{ netflowPort: number; sflowPort: number }> {
    const [netflowPort, sflowPort] = [await this.listen(this.options.netflowPort, false), await this.listen(this.options.sflowPort, true)];
    this.timer = setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
    this.logger.info('flow collector listening', { address: this.options.bindAddress, netflowPort, sflowPort });
    this.ports = { netflowPort, sflowPort };
    return this.ports;
  }

  private listen(port: number, sflow: boolean): Promise<number> {
    const socket = dgram.createSocket({ type: this.options.bindAddress.includes(':') ? 'udp6' : 'udp4', reuseAddr: false });
    this.sockets.push(socket);
    socket.on('message', (datagram, remote) => this.receive(datagram, remote.address.replace(/^::ffff:/, ''), sflow));
    return new Promise((resolve, reject) => {
      socket.once('error', (error: NodeJS.ErrnoException) =>
        reject(error.code === 'EADDRINUSE' ? new Error(`UDP port ${port} is in use (setting service.flows.${sflow ? 'sflow' : 'netflow'}-port)`) : error),
      );
      socket.bind(port, this.options.bindAddress, () => {
        socket.removeAllListeners('error');
        socket.on('error', (error) => this.logger.warn('flow socket error', { error }));
        resolve((socket.address() as AddressInfo).port);
      });
    });
  }

  /** One datagram: decoded, dated, buffered. Public for the benchmark, which skips the socket. */
  receive(datagram: Buffer, source: string, sflow: boolean, now = Date.now()): void {
    const outcome = this.decoder.decode(datagram, source, sflow, now);
    if (!outcome.ok) {
      this.logger.debug('flow datagram dropped', { source, reason: outcome.reason });
      return;
    }
    for (const name of outcome.datagram.interfaceNames) {
      if (this.interfaceNames.size < PENDING_INTERFACE_NAMES) this.interfaceNames.set(`${name.exporter}|${name.ifIndex}`, name);
    }
    for (const flow of outcome.datagram.flows) {
      this.counters.received++;
      if (flow.start < now - this.options.maxAgeMs || flow.start > now + HOUR_MS) this.counters.outOfWindow++;
      else if (this.buffer.length >= this.options.batchSize * BUFFERED_BATCHES) this.counters.overflow++;
      else this.buffer.push(flow);
    }
    if (this.buffer.length >= this.options.batchSize) void this.flush();
  }

  /** Flows received and not yet written (the benchmark waits on it instead of overflowing). */
  get backlog(): number {
    return this.buffer.length;
  }

  /** Writes what is buffered (one batch at a time); resolves when every write so far is done. */
  flush(): Promise<void> {
    if (this.flushQueued) return this.writing;
    this.flushQueued = true;
    this.writing = this.writing.then(async () => {
      this.flushQueued = false;
      while (this.buffer.length > 0) {
        const batch = this.buffer.splice(0, this.options.batchSize);
        try {
          await this.store.write(batch);
          this.counters.stored += batch.length;
        } catch (error) {
          this.counters.writeFailed += batch.length;
          this.logger.warn('flow batch not written', { flows: batch.length, error });
        }
      }
      await this.writeExporters();
    });
    return this.writing;
  }

  /** What each exporter sent since the last write, added to its row (a failed write is tried again next time). */
  private async writeExporters(): Promise<void> {
    const now = this.decoder.counters();
    const deltas = now.flatMap((c) => {
      const before = this.written.get(c.address);
      if (before && before.datagrams === c.datagrams) return [];
      // An exporter the decoder forgot and heard again starts from zero.
      const base = before && before.datagrams <= c.datagrams ? before : undefined;
      return [{ ...c, ...Object.fromEntries(COUNTED.map((k) => [k, c[k] - (base?.[k] ?? 0)])) }];
    });
    const names = [...this.interfaceNames.values()];
    if (deltas.length === 0 && names.length === 0) return;
    try {
      await this.store.recordExporters(deltas, names);
      this.written = new Map(now.map((c) => [c.address, c]));
      this.interfaceNames.clear();
    } catch (error) {
      this.logger.warn('flow exporters not written', { error });
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    this.sockets = [];
    await this.flush();
  }
}
