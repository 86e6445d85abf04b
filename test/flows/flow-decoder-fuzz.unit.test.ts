// A bounded fuzz of the decoders: every real datagram of the fixtures cut at every length, with
// bytes flipped, and random datagrams with valid version words. Nothing may throw; malformed
// datagrams are counted per exporter; every flow let through can be encoded for COPY; the
// template cache stays under its caps.
import { FlowDecoder } from '../../src/features/flows/decode/flow-decoder.js';
import type { FlowRecord } from '../../src/features/flows/decode/flow-record.js';
import { FlowCopyEncoder } from '../../src/features/flows/flow-copy-encoder.js';
import { datagrams, IE, ipfixDataSet, ipfixMessage, ipfixTemplateSet, SOFTFLOWD_FIXTURES } from './fixtures.js';

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const real = [...SOFTFLOWD_FIXTURES.flatMap((name) => datagrams(name).map((d) => ({ d, sflow: false }))), ...datagrams('pmacctd-sflow').map((d) => ({ d, sflow: true }))];
const limits = { maxTemplatesPerDomain: 8, maxTemplates: 24, maxExporters: 4, templateTtlMs: 60_000 };

describe('decoders under hostile input', () => {
  it('a real datagram cut short at any length is dropped and counted, never thrown', () => {
    const decoder = new FlowDecoder(limits);
    let refused = 0;
    for (const { d, sflow } of real) {
      // A fresh exporter for the full datagram teaches the templates, so cuts hit data sets too.
      decoder.decode(d, '198.51.100.1', sflow);
      for (let length = 0; length < d.length; length++) {
        const outcome = decoder.decode(d.subarray(0, length), '198.51.100.1', sflow);
        if (!outcome.ok) refused++;
      }
    }
    const counters = decoder.counters().find((c) => c.address === '198.51.100.1')!;
    expect(counters.decodeErrors).toBe(refused);
    // Cuts inside a header or a record are always refused; only cuts at padding-free set ends pass.
    expect(refused).toBeGreaterThan(real.reduce((sum, { d }) => sum + d.length, 0) * 0.9);
  });

  it('real datagrams with random bytes changed, and random datagrams, never throw; errors are counted', () => {
    const next = random(13);
    const decoder = new FlowDecoder(limits);
    let refused = 0;
    const flows: FlowRecord[] = [];
    const now = Date.now();
    const decode = (datagram: Buffer, exporter: string, sflow: boolean) => {
      const outcome = decoder.decode(datagram, exporter, sflow, now);
      if (outcome.ok) flows.push(...outcome.datagram.flows);
      else refused++;
    };
    for (let round = 0; round < 1500; round++) {
      const { d, sflow } = real[Math.floor(next() * real.length)]!;
      const mutated = Buffer.from(d);
      const flips = 1 + Math.floor(next() * 8);
      for (let i = 0; i < flips; i++) mutated[Math.floor(next() * mutated.length)] = Math.floor(next() * 256);
      const exporter = `203.0.113.${Math.floor(next() * limits.maxExporters)}`;
      decode(mutated, exporter, sflow);
      const noise = Buffer.from(Array.from({ length: Math.floor(next() * 1500) }, () => Math.floor(next() * 256)));
      // Valid version words, so the noise reaches past the dispatch.
      const version = [5, 9, 10][round % 3]!;
      if (noise.length >= 2) noise.writeUInt16BE(version, 0);
      decode(noise, exporter, round % 2 === 0);
    }
    const counters = decoder.counters();
    expect(counters.reduce((sum, c) => sum + c.decodeErrors, 0)).toBe(refused);
    expect(refused).toBeGreaterThan(1500);
    // Whatever the decoder lets through fits its columns: the COPY encoder takes every flow, one by one.
    expect(flows.length).toBeGreaterThan(1000);
    const encoder = new FlowCopyEncoder({ capacity: 100, ttlMs: 60_000 });
    for (const flow of flows) expect(() => encoder.encode([flow], now)).not.toThrow();
    const perDomain = new Map<string, number>();
    for (const [key] of decoder.templates.templates.entries()) perDomain.set(key.slice(0, key.lastIndexOf('|')), (perDomain.get(key.slice(0, key.lastIndexOf('|'))) ?? 0) + 1);
    expect(decoder.templates.templates.size).toBeLessThanOrEqual(limits.maxTemplates);
    for (const count of perDomain.values()) expect(count).toBeLessThanOrEqual(limits.maxTemplatesPerDomain);
  });

  it('more exporters than maxExporters: the one heard from least recently is forgotten', () => {
    const decoder = new FlowDecoder(limits);
    const [first] = datagrams('softflowd-ipfix');
    for (let i = 0; i < 20; i++) decoder.decode(first!, `192.0.2.${i}`, false);
    expect(decoder.exporters.size).toBe(limits.maxExporters);
    expect(decoder.counters().map((c) => c.address).sort()).toEqual(['192.0.2.16', '192.0.2.17', '192.0.2.18', '192.0.2.19']);
  });

  it('exporters that sent flows outlive a flood of senders that sent none', () => {
    const decoder = new FlowDecoder(limits);
    const [first] = datagrams('softflowd-ipfix');
    expect(decoder.decode(first!, '192.0.2.1', false).ok && decoder.counters()[0]!.flows).toBeGreaterThan(0);
    for (let i = 0; i < 100; i++) decoder.decode(Buffer.from('garbage'), `198.51.100.${i}`, false);
    expect(decoder.counters().map((c) => c.address)).toContain('192.0.2.1');
    expect(decoder.exporters.stats.evicted).toBe(100 - (limits.maxExporters - 1));
  });

  /** An IPFIX message with one template of one field (sourceIPv4Address). */
  const oneFieldTemplate = (id: number) => ipfixMessage(0, [ipfixTemplateSet([{ id, fields: [{ id: IE.sourceIPv4Address, length: 4 }] }])]);

  it('an exporter that sends only new template ids keeps at most its cap per domain: templates no data set read make room, none is refused', () => {
    const decoder = new FlowDecoder(limits);
    for (let id = 256; id < 356; id++) expect(decoder.decode(oneFieldTemplate(id), '192.0.2.50', false).ok).toBe(true);
    expect(decoder.templates.templateCount('192.0.2.50')).toBe(limits.maxTemplatesPerDomain);
    expect(decoder.counters()[0]).toMatchObject({ datagrams: 100, templatesRefused: 0, decodeErrors: 0 });
    expect(decoder.templates.templates.stats.evicted).toBe(100 - limits.maxTemplatesPerDomain);
  });

  it('templates in use stay through a flood of new ids; a new one is refused, and counted, only when all of its domain are in use', () => {
    const decoder = new FlowDecoder(limits);
    const fields = [{ id: IE.sourceIPv4Address, length: 4 }, { id: IE.destinationIPv4Address, length: 4 }];
    const used = [256, 257];
    const data = (id: number) => ipfixMessage(0, [ipfixDataSet(id, fields, [['10.0.0.1', '10.0.0.2']])]);
    decoder.decode(ipfixMessage(0, [ipfixTemplateSet(used.map((id) => ({ id, fields })))]), '192.0.2.60', false);
    for (const id of used) expect(decoder.decode(data(id), '192.0.2.60', false)).toMatchObject({ ok: true, datagram: { flows: [{ srcAddr: '10.0.0.1' }] } });
    for (let id = 300; id < 400; id++) decoder.decode(oneFieldTemplate(id), '192.0.2.60', false);
    for (const id of used) expect(decoder.decode(data(id), '192.0.2.60', false)).toMatchObject({ ok: true, datagram: { flows: [{ srcAddr: '10.0.0.1' }], missingTemplates: 0 } });
    expect(decoder.counters()[0]!.templatesRefused).toBe(0);
    // Every template of the domain in use: the next new one is refused rather than one in use forgotten.
    for (let id = 400; id < 400 + limits.maxTemplatesPerDomain - used.length; id++) {
      decoder.decode(ipfixMessage(0, [ipfixTemplateSet([{ id, fields }]), ipfixDataSet(id, fields, [['10.0.0.3', '10.0.0.4']])]), '192.0.2.60', false);
    }
    const refused = decoder.decode(ipfixMessage(0, [ipfixTemplateSet([{ id: 500, fields }]), ipfixDataSet(500, fields, [['10.0.0.5', '10.0.0.6']])]), '192.0.2.60', false);
    expect(refused).toMatchObject({ ok: true, datagram: { flows: [], missingTemplates: 1, templatesRefused: 1 } });
    expect(decoder.counters()[0]!.templatesRefused).toBe(1);
    expect(decoder.templates.templates.stats.refused).toBe(1);
  });

  it('sampling rates announced for ever new sampler ids stay within maxSamplerIds; a rate flows read is kept', () => {
    const decoder = new FlowDecoder({ ...limits, maxSamplerIds: 50 });
    const options = { id: 256, scope: 1, fields: [{ id: IE.samplerId, length: 4 }, { id: IE.samplingInterval, length: 4 }] };
    const flow = { id: 257, fields: [{ id: IE.sourceIPv4Address, length: 4 }, { id: IE.destinationIPv4Address, length: 4 }, { id: IE.samplerId, length: 4 }] };
    const rateOf = () => {
      const outcome = decoder.decode(ipfixMessage(0, [ipfixDataSet(257, flow.fields, [['10.0.0.1', '10.0.0.2', 7]])]), '192.0.2.70', false);
      return outcome.ok ? outcome.datagram.flows[0]?.samplingRate : undefined;
    };
    decoder.decode(ipfixMessage(0, [ipfixTemplateSet([options]), ipfixTemplateSet([flow]), ipfixDataSet(256, options.fields, [[7, 10]])]), '192.0.2.70', false);
    expect(rateOf()).toBe(10);
    for (let round = 0; round < 40; round++) {
      decoder.decode(ipfixMessage(0, [ipfixDataSet(256, options.fields, Array.from({ length: 100 }, (_, i) => [1000 + round * 100 + i, 2]))]), '192.0.2.70', false);
    }
    expect(decoder.templates.options.size).toBeLessThanOrEqual(50);
    expect(decoder.templates.options.stats.evicted).toBeGreaterThan(4000 - 50);
    expect(rateOf()).toBe(10);
  });

  it('exporters, templates and rates idle past their time to live are forgotten at the next sweep', () => {
    const decoder = new FlowDecoder({ ...limits, exporterTtlMs: 60_000, samplerTtlMs: 60_000 });
    const t0 = Date.now();
    decoder.decode(datagrams('softflowd-ipfix-sampled')[0]!, '192.0.2.80', false, t0);
    expect(decoder.exporters.size).toBe(1);
    expect(decoder.templates.templates.size).toBeGreaterThan(0);
    expect(decoder.templates.options.size).toBeGreaterThan(0);
    decoder.expire(t0 + 61_000);
    expect([decoder.exporters.size, decoder.templates.templates.size, decoder.templates.options.size]).toEqual([0, 0, 0]);
  });
});
