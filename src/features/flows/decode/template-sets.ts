// What NetFlow v9 (RFC 3954) and IPFIX (RFC 7011) share: template records, data records read
// through a template, and the information elements we keep. The element ids below are the same in
// both (IPFIX took NetFlow v9's numbering); v9 options scopes are the exception, read apart.
import { ByteReader, ipv4, ipv6, readUnsigned, uptimeToEpoch } from './byte-reader.js';
import { FlowDecodeError, RecordRefused, type DecodedDatagram } from './flow-record.js';
import type { Template, TemplateCache } from './template-cache.js';

/** Bounds on one template: far above real ones (softflowd sends about 15 fields). */
const MAX_FIELDS = 256;
const VARIABLE_LENGTH = 65535;
const ENTERPRISE_BIT = 0x8000_0000;
const NTP_EPOCH_OFFSET_S = 2_208_988_800;
/** The widest unsigned integer a number holds exactly enough for any element we keep (unsigned64). */
const MAX_NUMBER_WIDTH = 8;
const MAX_UINT32 = 2 ** 32 - 1;
/** The name column's length (flow_exporter_interfaces.name): a longer announced name is cut here. */
const MAX_INTERFACE_NAME = 256;
/** The TCP flags of tcpControlBits (RFC 7125); some exporters leave the header length in the top four bits. */
const TCP_FLAGS = 0x0fff;

/** Information elements (IANA "IPFIX Information Elements"; NetFlow v9 field types). */
const IE = {
  octetDeltaCount: 1,
  packetDeltaCount: 2,
  protocolIdentifier: 4,
  ipClassOfService: 5,
  tcpControlBits: 6,
  sourceTransportPort: 7,
  sourceIPv4Address: 8,
  ingressInterface: 10,
  destinationTransportPort: 11,
  destinationIPv4Address: 12,
  egressInterface: 14,
  flowEndSysUpTime: 21,
  flowStartSysUpTime: 22,
  sourceIPv6Address: 27,
  destinationIPv6Address: 28,
  samplingInterval: 34,
  samplerId: 48,
  samplerRandomInterval: 50,
  interfaceName: 82,
  octetTotalCount: 85,
  packetTotalCount: 86,
  flowStartSeconds: 150,
  flowEndSeconds: 151,
  flowStartMilliseconds: 152,
  flowEndMilliseconds: 153,
  flowStartMicroseconds: 154,
  flowEndMicroseconds: 155,
  flowStartNanoseconds: 156,
  flowEndNanoseconds: 157,
  systemInitTimeMilliseconds: 160,
  selectorId: 302,
  samplingPacketInterval: 305,
  samplingPacketSpace: 306,
} as const;

/** NetFlow v9 options scope field types (RFC 3954 §6.1). */
const V9_SCOPE_INTERFACE = 2;

export interface SetContext {
  exporter: string;
  domain: number;
  now: number;
  cache: TemplateCache;
  ipfix: boolean;
  /** v9: the header's uptime, which dates uptime stamps with the header's clock. */
  headerUptime?: number;
  /** Epoch ms of the export (header), the fallback time of a record without its own. */
  exportTime: number;
  /** Templates refused because their domain is full of templates in use. */
  templatesRefused: number;
  /** Sampling rates looked up for this message, by sampler id (one lookup per sampler, not per flow). */
  rates: Map<number | undefined, number>;
}

/** Reads the template records of one set (v9 flowset 0/1, IPFIX set 2/3) into the cache. */
function readTemplateSet(set: ByteReader, ctx: SetContext, options: boolean): void {
  const headerLength = ctx.ipfix ? (options ? 6 : 4) : options ? 6 : 4;
  // Whatever is shorter than a record header at the end is padding.
  while (set.remaining >= headerLength) {
    const id = set.u16();
    let fieldCount: number;
    let scopeFieldCount = 0;
    if (ctx.ipfix) {
      fieldCount = set.u16();
      if (fieldCount === 0) {
        // A withdrawal (RFC 7011 §8.1): of one template, or of all (id 2 or 3).
        if (id === 2 || id === 3) ctx.cache.withdrawAll(ctx.exporter, ctx.domain, id === 3, ctx.now);
        else ctx.cache.withdraw(ctx.exporter, ctx.domain, id);
        continue;
      }
      if (options) scopeFieldCount = set.u16();
    } else if (options) {
      const scopeLength = set.u16();
      const optionLength = set.u16();
      if (scopeLength % 4 !== 0 || optionLength % 4 !== 0) throw new FlowDecodeError('options template lengths are not multiples of 4');
      scopeFieldCount = scopeLength / 4;
      fieldCount = scopeFieldCount + optionLength / 4;
    } else {
      fieldCount = set.u16();
    }
    if (id < 256) throw new FlowDecodeError(`template id ${id} (below 256)`);
    if (fieldCount === 0 || fieldCount > MAX_FIELDS) throw new FlowDecodeError(`template with ${fieldCount} fields`);
    if (scopeFieldCount > fieldCount || (options && ctx.ipfix && scopeFieldCount === 0)) throw new FlowDecodeError('options template scope count is invalid');
    // Packed (a word per field) so that a template held costs at most 1 KiB of fields.
    const fields = new Uint32Array(fieldCount);
    let minimumLength = 0;
    for (let i = 0; i < fieldCount; i++) {
      let fieldId = set.u16();
      const length = set.u16();
      let enterprise = 0;
      if (ctx.ipfix && fieldId & 0x8000) {
        fieldId &= 0x7fff;
        enterprise = set.u32();
      }
      if (length === 0 || (!ctx.ipfix && length === VARIABLE_LENGTH)) throw new FlowDecodeError(`field ${fieldId} of length ${length}`);
      fields[i] = ((enterprise !== 0 ? ENTERPRISE_BIT : 0) | (fieldId << 16) | length) >>> 0;
      minimumLength += length === VARIABLE_LENGTH ? 1 : length;
    }
    const template: Template = { id, fields, scopeFieldCount, options, learnedAt: ctx.now, minimumLength };
    if (!ctx.cache.learn(ctx.exporter, ctx.domain, template, ctx.now)) ctx.templatesRefused++;
  }
}

function ntpToEpochMs(bytes: Buffer): number {
  const seconds = bytes.readUInt32BE(0);
  const fraction = bytes.readUInt32BE(4);
  return (seconds - NTP_EPOCH_OFFSET_S) * 1000 + Math.floor((fraction / 2 ** 32) * 1000);
}

/** The fields of one data record that we keep, by element id. */
type Values = Map<number, Buffer>;

function readRecord(set: ByteReader, template: Template): { values: Values; scopes: Values } {
  const values: Values = new Map();
  const scopes: Values = new Map();
  const { fields, scopeFieldCount } = template;
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as number;
    let length = field & 0xffff;
    if (length === VARIABLE_LENGTH) {
      length = set.u8();
      if (length === 255) length = set.u16();
    }
    const bytes = set.bytes(length);
    if (field & ENTERPRISE_BIT) continue;
    (index < scopeFieldCount ? scopes : values).set((field >>> 16) & 0x7fff, bytes);
  }
  return { values, scopes };
}

/** An unsigned element; a field wider than any number we keep refuses its record. */
const num = (values: Values, id: number): number | undefined => {
  const bytes = values.get(id);
  if (!bytes) return undefined;
  if (bytes.length > MAX_NUMBER_WIDTH) throw new RecordRefused('fieldWidth');
  return readUnsigned(bytes);
};

/** An address element of its exact width (4 bytes for IPv4, 16 for IPv6), else the record is refused. */
function address(values: Values, v4: number, v6: number): string | undefined {
  const four = values.get(v4);
  if (four) {
    if (four.length !== 4) throw new RecordRefused('fieldWidth');
    return ipv4(four);
  }
  const six = values.get(v6);
  if (!six) return undefined;
  if (six.length !== 16) throw new RecordRefused('fieldWidth');
  return ipv6(six);
}

/** One set of a message: its id and its body. */
export interface RawSet {
  id: number;
  body: ByteReader;
}

/**
 * Reads the sets of one message in the order that makes it self-contained: templates first, then
 * options data (sampling rate, the exporter's clock), then flows, so that a flow is weighted and
 * dated by what the same message announced after it. A data set without a known template counts.
 */
export function readSets(sets: RawSet[], ctx: SetContext, out: DecodedDatagram): void {
  const templateIds = ctx.ipfix ? [2, 3] : [0, 1];
  for (const { id, body } of sets) if (templateIds.includes(id)) readTemplateSet(body, ctx, id === templateIds[1]);
  const data = sets.flatMap(({ id, body }) => {
    if (id < 256) return [];
    const template = ctx.cache.find(ctx.exporter, ctx.domain, id, ctx.now);
    if (!template) out.missingTemplates++;
    return template ? [{ body, template }] : [];
  });
  for (const { body, template } of data) if (template.options) readDataSet(body, template, ctx, out);
  for (const { body, template } of data) if (!template.options) readDataSet(body, template, ctx, out);
  out.templatesRefused = ctx.templatesRefused;
}

function readDataSet(set: ByteReader, template: Template, ctx: SetContext, out: DecodedDatagram): void {
  while (set.remaining >= template.minimumLength) {
    const { values, scopes } = readRecord(set, template);
    try {
      if (template.options) applyOptions(values, scopes, ctx, out);
      else readFlow(values, ctx, out);
    } catch (error) {
      if (!(error instanceof RecordRefused)) throw error;
      if (template.options) out.optionsDropped++;
      else out.recordsDropped[error.reason]++;
    }
  }
}

function applyOptions(values: Values, scopes: Values, ctx: SetContext, out: DecodedDatagram): void {
  // In IPFIX the scopes are ordinary elements; in v9 they have their own numbering.
  const all: Values = ctx.ipfix ? new Map([...scopes, ...values]) : values;
  const samplerId = num(all, IE.samplerId) ?? num(all, IE.selectorId);
  const rate = samplingRateOf(all);
  const name = all.get(IE.interfaceName);
  const ifIndex = ctx.ipfix ? num(all, IE.ingressInterface) ?? num(all, IE.egressInterface) : num(scopes, V9_SCOPE_INTERFACE) ?? num(all, IE.ingressInterface);
  const init = num(all, IE.systemInitTimeMilliseconds);
  // Checked before anything is kept: a record is applied whole or not at all.
  if ((rate !== undefined && !(rate >= 1 && rate <= MAX_UINT32)) || (ifIndex !== undefined && ifIndex > MAX_UINT32)) throw new RecordRefused('fieldRange');
  if (rate !== undefined) ctx.cache.setSamplingRate(ctx.exporter, ctx.domain, samplerId, rate, ctx.now);
  if (init !== undefined) ctx.cache.setSystemInit(ctx.exporter, ctx.domain, init, ctx.now);
  if (name && ifIndex !== undefined) {
    const text = name.subarray(0, MAX_INTERFACE_NAME * 4).toString('utf8').replace(/\0+$/, '').slice(0, MAX_INTERFACE_NAME);
    if (text) out.interfaceNames.push({ exporter: ctx.exporter, ifIndex, name: text });
  }
}

/** 1-in-N from a sampling interval, a random interval, or PSAMP's interval and space. */
function samplingRateOf(values: Values): number | undefined {
  const interval = num(values, IE.samplingInterval) ?? num(values, IE.samplerRandomInterval);
  if (interval !== undefined && interval > 0) return interval;
  const taken = num(values, IE.samplingPacketInterval);
  const space = num(values, IE.samplingPacketSpace);
  if (taken !== undefined && taken > 0 && space !== undefined) return (taken + space) / taken;
  return undefined;
}

function readFlow(values: Values, ctx: SetContext, out: DecodedDatagram): void {
  const srcAddr = address(values, IE.sourceIPv4Address, IE.sourceIPv6Address);
  const dstAddr = address(values, IE.destinationIPv4Address, IE.destinationIPv6Address);
  if (!srcAddr || !dstAddr) return; // not a flow of addresses (e.g. a layer-2 record): nothing to rank
  const start = timeOf(values, ctx, 'start');
  out.flows.push({
    exporter: ctx.exporter,
    observationDomain: ctx.domain,
    start,
    end: Math.max(start, timeOf(values, ctx, 'end')),
    srcAddr,
    dstAddr,
    srcPort: num(values, IE.sourceTransportPort) ?? 0,
    dstPort: num(values, IE.destinationTransportPort) ?? 0,
    protocol: num(values, IE.protocolIdentifier) ?? 0,
    tcpFlags: (num(values, IE.tcpControlBits) ?? 0) & TCP_FLAGS,
    tos: num(values, IE.ipClassOfService) ?? 0,
    bytes: num(values, IE.octetDeltaCount) ?? num(values, IE.octetTotalCount) ?? 0,
    packets: num(values, IE.packetDeltaCount) ?? num(values, IE.packetTotalCount) ?? 0,
    samplingRate: samplingRateOf(values) ?? announcedRate(ctx, num(values, IE.samplerId) ?? num(values, IE.selectorId)),
    inputInterface: num(values, IE.ingressInterface) ?? 0,
    outputInterface: num(values, IE.egressInterface) ?? 0,
  });
}

function announcedRate(ctx: SetContext, samplerId: number | undefined): number {
  let rate = ctx.rates.get(samplerId);
  if (rate === undefined) ctx.rates.set(samplerId, (rate = ctx.cache.samplingRate(ctx.exporter, ctx.domain, samplerId, ctx.now)));
  return rate;
}

function timeOf(values: Values, ctx: SetContext, which: 'start' | 'end'): number {
  const start = which === 'start';
  const ms = num(values, start ? IE.flowStartMilliseconds : IE.flowEndMilliseconds);
  if (ms !== undefined) return ms;
  const seconds = num(values, start ? IE.flowStartSeconds : IE.flowEndSeconds);
  if (seconds !== undefined) return seconds * 1000;
  const ntp = values.get(start ? IE.flowStartMicroseconds : IE.flowEndMicroseconds) ?? values.get(start ? IE.flowStartNanoseconds : IE.flowEndNanoseconds);
  if (ntp?.length === 8) return ntpToEpochMs(ntp);
  const uptime = num(values, start ? IE.flowStartSysUpTime : IE.flowEndSysUpTime);
  if (uptime !== undefined) {
    if (ctx.headerUptime !== undefined) return uptimeToEpoch(uptime, ctx.headerUptime, ctx.exportTime);
    const boot = num(values, IE.systemInitTimeMilliseconds) ?? ctx.cache.systemInit(ctx.exporter, ctx.domain, ctx.now);
    if (boot !== undefined) return boot + uptime;
  }
  return ctx.exportTime;
}
