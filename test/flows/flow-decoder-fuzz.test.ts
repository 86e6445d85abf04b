// A bounded fuzz of the decoders: every real datagram of the fixtures cut at every length, with
// bytes flipped, and random datagrams with valid version words. Nothing may throw; malformed
// datagrams are counted per exporter; the template cache stays under its caps.
import { FlowDecoder } from '../../src/features/flows/decode/flow-decoder.js';
import { datagrams, SOFTFLOWD_FIXTURES } from './fixtures.js';

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
const limits = { maxTemplatesPerExporter: 8, maxExporters: 4, templateTtlMs: 60_000 };

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
    for (let round = 0; round < 1500; round++) {
      const { d, sflow } = real[Math.floor(next() * real.length)]!;
      const mutated = Buffer.from(d);
      const flips = 1 + Math.floor(next() * 8);
      for (let i = 0; i < flips; i++) mutated[Math.floor(next() * mutated.length)] = Math.floor(next() * 256);
      const exporter = `203.0.113.${Math.floor(next() * limits.maxExporters)}`;
      if (!decoder.decode(mutated, exporter, sflow).ok) refused++;
      const noise = Buffer.from(Array.from({ length: Math.floor(next() * 1500) }, () => Math.floor(next() * 256)));
      // Valid version words, so the noise reaches past the dispatch.
      const version = [5, 9, 10][round % 3]!;
      if (noise.length >= 2) noise.writeUInt16BE(version, 0);
      if (!decoder.decode(noise, exporter, round % 2 === 0).ok) refused++;
    }
    const counters = decoder.counters();
    expect(counters.reduce((sum, c) => sum + c.decodeErrors, 0)).toBe(refused);
    expect(refused).toBeGreaterThan(1500);
    for (const c of counters) expect(decoder.templates.templateCount(c.address)).toBeLessThanOrEqual(limits.maxTemplatesPerExporter);
  });

  it('more exporters than maxExporters: the one heard from least recently is forgotten', () => {
    const decoder = new FlowDecoder(limits);
    const [first] = datagrams('softflowd-ipfix');
    for (let i = 0; i < 20; i++) decoder.decode(first!, `192.0.2.${i}`, false);
    expect(decoder.templates.exporterCount).toBe(limits.maxExporters);
    expect(decoder.counters().map((c) => c.address).sort()).toEqual(['192.0.2.16', '192.0.2.17', '192.0.2.18', '192.0.2.19']);
  });

  it('an exporter that sends only new template ids is held at its cap, and the refusals are counted', () => {
    const decoder = new FlowDecoder(limits);
    for (let id = 256; id < 356; id++) {
      // An IPFIX message with one template of one field (sourceIPv4Address).
      const message = Buffer.alloc(16 + 4 + 8);
      message.writeUInt16BE(10, 0);
      message.writeUInt16BE(message.length, 2);
      message.writeUInt16BE(2, 16);
      message.writeUInt16BE(12, 18);
      message.writeUInt16BE(id, 20);
      message.writeUInt16BE(1, 22);
      message.writeUInt16BE(8, 24);
      message.writeUInt16BE(4, 26);
      expect(decoder.decode(message, '192.0.2.50', false).ok).toBe(true);
    }
    expect(decoder.templates.templateCount('192.0.2.50')).toBe(limits.maxTemplatesPerExporter);
    expect(decoder.counters()[0]).toMatchObject({ datagrams: 100, templatesRefused: 100 - limits.maxTemplatesPerExporter, decodeErrors: 0 });
  });
});
