// The decoders over datagrams that real exporters sent (test/fixtures/flows, made by capture.sh
// there): softflowd's NetFlow v5, v9 and IPFIX (plain and 1-in-4 sampled) checked record by record
// against what nfdump's nfcapd collected from the same datagrams, and pmacctd's sFlow v5 checked
// against the captured packets themselves.
import { FlowDecoder } from '../../src/features/flows/decode/flow-decoder.js';
import type { FlowRecord } from '../../src/features/flows/decode/flow-record.js';
import { datagrams, nfdumpRecords, pcapPackets, SOFTFLOWD_FIXTURES, type NfdumpRecord } from './fixtures.js';

const EXPORTER = '127.0.0.1';

function decodeAll(decoder: FlowDecoder, name: Parameters<typeof datagrams>[0], sflow = false): FlowRecord[] {
  return datagrams(name).flatMap((datagram) => {
    const outcome = decoder.decode(datagram, EXPORTER, sflow);
    if (!outcome.ok) throw new Error(`${name}: ${outcome.reason}`);
    return outcome.datagram.flows;
  });
}

// nfdump dates NetFlow v9 uptime stamps without the 32-bit wrap (softflowd replaying a capture
// stamps flows "after" its header uptime): v9 times are compared with v5's instead, below.
const TIMES_AS_NFDUMP = new Set(['softflowd-v5', 'softflowd-ipfix', 'softflowd-ipfix-sampled']);

// Times as an ordered pair: nfdump 1.7.1 shows some IPFIX records with first and last swapped.
const key = (r: NfdumpRecord, times: boolean) =>
  [r.srcAddr, r.dstAddr, r.srcPort, r.dstPort, r.protocol, r.packets, r.bytes, ...(times ? [r.firstSeen, r.lastSeen].sort() : [])].join(' ');

/** Our flow in nfdump's terms: whole seconds, ports only for TCP and UDP. */
function asNfdump(flow: FlowRecord, times = true): string {
  const ports = flow.protocol === 6 || flow.protocol === 17;
  return key(
    {
      ...flow,
      srcPort: ports ? flow.srcPort : 0,
      dstPort: ports ? flow.dstPort : 0,
      firstSeen: Math.floor(flow.start / 1000),
      lastSeen: Math.floor(flow.end / 1000),
    },
    times,
  );
}

describe('NetFlow v5, v9 and IPFIX from softflowd', () => {
  it.each(SOFTFLOWD_FIXTURES)('%s: every record equals the one nfdump collected (addresses, ports, protocol, packets, bytes, times)', (name) => {
    const times = TIMES_AS_NFDUMP.has(name);
    const ours = decodeAll(new FlowDecoder(), name).map((f) => asNfdump(f, times)).sort();
    const theirs = nfdumpRecords(name)
      .map((r) => key({ ...r, srcPort: r.protocol === 6 || r.protocol === 17 ? r.srcPort : 0 }, times))
      .sort();
    expect(theirs.length).toBeGreaterThan(10);
    expect(ours).toEqual(theirs);
  });

  it('v5 carries the IPv4 flows only, and their bytes add up to what softflowd counted for IPv4', () => {
    const flows = decodeAll(new FlowDecoder(), 'softflowd-v5');
    expect(flows.every((f) => /^\d+\.\d+\.\d+\.\d+$/.test(f.srcAddr))).toBe(true);
    expect(flows.reduce((sum, f) => sum + f.bytes, 0)).toBe(nfdumpRecords('softflowd-v5').reduce((sum, r) => sum + r.bytes, 0));
    expect(flows.every((f) => f.samplingRate === 1)).toBe(true);
  });

  it('v9 and IPFIX carry the IPv6 flows too, with the same records in both', () => {
    const v9 = decodeAll(new FlowDecoder(), 'softflowd-v9');
    const ipfix = decodeAll(new FlowDecoder(), 'softflowd-ipfix');
    expect(v9.some((f) => f.srcAddr === 'fd77::1' && f.dstAddr === 'fd77::2' && f.dstPort === 8443)).toBe(true);
    expect(v9.map((f) => asNfdump(f, false)).sort()).toEqual(ipfix.map((f) => asNfdump(f, false)).sort());
  });

  it('v9 dates its IPv4 flows as v5 does, within the second that the v9 header clock lacks (uptime stamps taken modulo 2^32)', () => {
    const v5 = new Map(decodeAll(new FlowDecoder(), 'softflowd-v5').map((f) => [asNfdump(f, false), f]));
    const v9 = decodeAll(new FlowDecoder(), 'softflowd-v9').filter((f) => f.srcAddr.includes('.'));
    expect(v9).toHaveLength(v5.size);
    for (const flow of v9) {
      const same = v5.get(asNfdump(flow, false))!;
      expect(Math.abs(flow.start - same.start)).toBeLessThan(1000);
      expect(Math.abs(flow.end - same.end)).toBeLessThan(1000);
    }
  });

  it.each(['softflowd-v9-sampled', 'softflowd-ipfix-sampled'] as const)(
    '%s: the options record announces 1-in-4 sampling, and every flow carries the rate',
    (name) => {
      const flows = decodeAll(new FlowDecoder(), name);
      expect(flows.length).toBeGreaterThan(0);
      expect(flows.every((f) => f.samplingRate === 4)).toBe(true);
    },
  );

  it('the v9 options record names interface 0 (softflowd names it after its capture source)', () => {
    const decoder = new FlowDecoder();
    const names = datagrams('softflowd-v9').flatMap((d) => {
      const outcome = decoder.decode(d, EXPORTER, false);
      return outcome.ok ? outcome.datagram.interfaceNames : [];
    });
    expect(names).toHaveLength(1);
    expect(names[0]).toMatchObject({ exporter: EXPORTER, ifIndex: 0 });
    expect(names[0]!.name.length).toBeGreaterThan(0);
  });

  it('a data set that arrives before its template is counted as missing a template, and decodes once the template came', () => {
    const decoder = new FlowDecoder();
    const [first, second] = datagrams('softflowd-v9');
    // The first datagram holds the templates; another exporter address has none of them.
    const without = decoder.decode(second!, '192.0.2.9', false);
    expect(without.ok && without.datagram.flows.length === 0 && without.datagram.missingTemplates > 0).toBe(true);
    decoder.decode(first!, '192.0.2.9', false);
    const withTemplates = decoder.decode(second!, '192.0.2.9', false);
    expect(withTemplates.ok && withTemplates.datagram.flows.length).toBeGreaterThan(0);
    expect(decoder.counters().find((c) => c.address === '192.0.2.9')).toMatchObject({ datagrams: 3, decodeErrors: 0, protocol: 'netflow-v9' });
  });

  it('templates expire after their time to live: data is then counted as missing a template', () => {
    const decoder = new FlowDecoder({ maxTemplatesPerDomain: 64, maxExporters: 10, templateTtlMs: 60_000 });
    const all = datagrams('softflowd-ipfix');
    const t0 = Date.now();
    all.forEach((d) => decoder.decode(d, EXPORTER, false, t0));
    const later = all.slice(1).map((d) => decoder.decode(d, EXPORTER, false, t0 + 61_000));
    expect(later.every((o) => o.ok && o.datagram.flows.length === 0)).toBe(true);
    expect(decoder.counters()[0]!.missingTemplates).toBeGreaterThan(0);
  });

  it('a domain holds at most maxTemplatesPerDomain templates: data of a template forgotten for room is counted as missing one', () => {
    const decoder = new FlowDecoder({ maxTemplatesPerDomain: 1, maxExporters: 10, templateTtlMs: 60_000 });
    datagrams('softflowd-v9').forEach((d) => decoder.decode(d, EXPORTER, false));
    expect(decoder.templates.templateCount(EXPORTER)).toBe(1);
    expect(decoder.counters()[0]!.missingTemplates).toBeGreaterThan(0);
  });
});

describe('sFlow v5 from pmacctd', () => {
  const flows = decodeAll(new FlowDecoder(), 'pmacctd-sflow', true);
  const packets = pcapPackets();

  it('every flow sample is one captured packet: its addresses and its length on the wire (with the 4-byte FCS, as sFlow counts)', () => {
    expect(flows.length).toBeGreaterThan(20);
    for (const flow of flows) {
      expect(packets).toContainEqual({ srcAddr: flow.srcAddr, dstAddr: flow.dstAddr, length: flow.bytes - 4 });
      expect(flow.packets).toBe(1);
    }
  });

  it('the agent is the exporter, and each sample is weighted by the 1-in-2 sampling rate', () => {
    expect(new Set(flows.map((f) => f.exporter))).toEqual(new Set(['10.77.0.1']));
    expect(flows.every((f) => f.samplingRate === 2)).toBe(true);
  });

  it('TCP samples carry the ports of the conversations in the capture', () => {
    const ports = new Set(flows.filter((f) => f.protocol === 6).flatMap((f) => [f.srcPort, f.dstPort]));
    expect([8080, 9090, 8443].every((p) => ports.has(p))).toBe(true);
  });
});
