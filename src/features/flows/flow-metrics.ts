// The flow collector's series at /metrics (docs/flows.md lists them): datagrams by protocol and
// outcome, records stored and dropped by reason, the queue, batch writes, the bounded state (its
// sizes, caps, and what it forgot or refused) and what the kernel dropped on the sockets. Read from
// the collector's own counts when scraped, so that receiving a datagram touches no registry.
import type { Metrics } from '../../platform/metrics.js';
import { RECORD_DROP_REASONS, snakeCase } from './decode/flow-record.js';
import { PENDING_INTERFACE_NAMES, type FlowCollector } from './flow-collector.js';

type Samples<L extends string> = [Partial<Record<L, string>>, number][];

export function registerFlowMetrics(metrics: Metrics, collector: FlowCollector): void {
  // Each series is filled afresh from its source at every scrape.
  const counter = <L extends string>(name: string, help: string, labelNames: L[], read: () => Samples<L>) =>
    metrics.counter<L>({ name, help, labelNames, collect() { this.reset(); for (const [labels, value] of read()) this.inc(labels, value); } });
  const gauge = <L extends string>(name: string, help: string, labelNames: L[], read: () => Samples<L>) =>
    metrics.gauge<L>({ name, help, labelNames, collect() { this.reset(); for (const [labels, value] of read()) this.set(labels, value); } });
  const { datagrams, records, writes, interfaceNames } = collector.counters;
  const byProtocol = () => Object.entries(datagrams);
  const state = () => Object.entries(collector.state);

  counter('flow_datagrams_received_total', 'Datagrams read from the flow sockets, by the protocol their version word names (unknown: none).', ['protocol'], () =>
    byProtocol().map(([protocol, c]) => [{ protocol }, c.received]));
  counter('flow_datagrams_decoded_total', 'Datagrams decoded (their flows then stored or dropped record by record).', ['protocol'], () =>
    byProtocol().map(([protocol, c]) => [{ protocol }, c.decoded]));
  counter('flow_datagrams_dropped_total', 'Datagrams dropped whole: malformed (truncated, inconsistent, unknown version), or from a sender outside service.flows.allowed-exporters.', ['protocol', 'reason'], () =>
    byProtocol().flatMap(([protocol, c]) => [[{ protocol, reason: 'malformed' }, c.malformed], [{ protocol, reason: 'exporter_not_allowed' }, c.notAllowed]]));
  counter('flow_records_received_total', 'Flow records read from decoded datagrams; each is stored, dropped (by reason) or still queued.', [], () => [[{}, records.received]]);
  counter('flow_records_stored_total', 'Flow records written to PostgreSQL.', [], () => [[{}, records.stored]]);
  counter('flow_records_dropped_total', 'Flow records dropped, each alone, by reason: field_width, field_range (its values cannot be stored), out_of_window, queue_overflow, write_failed.', ['reason'], () =>
    RECORD_DROP_REASONS.map((reason) => [{ reason: snakeCase(reason) }, records.dropped[reason]]));
  counter('flow_options_records_dropped_total', 'Options records dropped: a field too wide, a sampling rate or ifIndex out of range.', [], () => [[{}, records.optionsDropped]]);
  counter('flow_data_sets_without_template_total', 'Data sets skipped because their template was not (or no longer) known.', [], () => [[{}, records.missingTemplates]]);
  gauge('flow_queue_flows', 'Flows received and waiting to be written.', [], () => [[{}, collector.backlog]]);
  gauge('flow_queue_capacity_flows', 'Flows that may wait; beyond, records are dropped (reason queue_overflow).', [], () => [[{}, collector.capacity]]);
  counter('flow_batch_writes_total', 'Batch writes to PostgreSQL by outcome; a batch with refused rows is split, each part a write.', ['outcome'], () =>
    [[{ outcome: 'written' }, writes.written], [{ outcome: 'failed' }, writes.failed]]);
  gauge('flow_state_entries', 'Entries held in each bounded structure of the collector (interface_names: waiting for the next write).', ['structure'], () =>
    [...state().map(([structure, map]): Samples<'structure'>[number] => [{ structure }, map.size]), [{ structure: 'interface_names' }, collector.pendingInterfaceNames]]);
  gauge('flow_state_capacity', 'The cap of each bounded structure.', ['structure'], () =>
    [...state().map(([structure, map]): Samples<'structure'>[number] => [{ structure }, map.limits.capacity]), [{ structure: 'interface_names' }, PENDING_INTERFACE_NAMES]]);
  counter('flow_state_forgotten_total', 'Entries a bounded structure forgot: evicted to make room, or expired (idle past their time to live).', ['structure', 'reason'], () =>
    state().flatMap(([structure, map]): Samples<'structure' | 'reason'> => [[{ structure, reason: 'evicted' }, map.stats.evicted], [{ structure, reason: 'expired' }, map.stats.expired]]));
  counter('flow_state_refused_total', 'New entries refused: templates of a domain whose templates are all in use, interface names while the pending ones are at their cap.', ['structure'], () =>
    [[{ structure: 'templates' }, collector.decoder.templates.templates.stats.refused], [{ structure: 'interface_names' }, interfaceNames.refused]]);
  counter('flow_stored_rows_removed_total', 'Rows deleted to keep a table within its cap (flow_exporters: service.flows.max-exporters; flow_exporter_interfaces: max-interface-names per exporter).', ['table'], () =>
    [[{ table: 'flow_exporters' }, collector.counters.exportersRemoved], [{ table: 'flow_exporter_interfaces' }, interfaceNames.removed]]);
  counter('flow_socket_receive_drops_total', 'Datagrams the kernel dropped on a flow socket before the collector read them (its receive buffer was full): the drops column of /proc/net/udp.', ['socket'], () =>
    Object.entries(collector.socketDrops()).map(([socket, drops]) => [{ socket }, drops as number]));
  gauge('flow_socket_receive_buffer_bytes', 'The receive buffer the kernel granted each flow socket (its own figure: twice what it holds for data).', ['socket'], () =>
    Object.entries(collector.receiveBuffers).map(([socket, bytes]) => [{ socket }, bytes as number]));
}
