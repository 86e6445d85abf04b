// The evidence behind a credential-free identification (FINGERPRINT, issue 39), from the asset's
// provenance: the device class with its confidence, each rule that decided it and those that lost,
// the OS the banners named, and the fingerprint's facts a higher-ranked source (SSH, SNMP) overrode.
import { api } from '../api';
import type { FactProvenance } from '../types';
import { Table, useLoad, type Column } from './ui';

interface Evidence {
  rule: string;
  deviceClass: string;
  weight: number;
  detail: string;
}
interface FingerprintEvidence {
  deviceClass: string | null;
  confidence: number | null;
  evidence: Evidence[];
  against: Evidence[];
  os: { family: string | null; name: string | null; from: string | null } | null;
}

const FINGERPRINT = 'fingerprint';
const percent = (n: number | null | undefined) => (typeof n === 'number' ? `${Math.round(n * 100)} %` : '—');
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
/** A fact's name as the fields list labels it (custom.osName: "osName"). */
const factName = (field: string) => field.replace(/^custom\./, '');

const EVIDENCE_COLUMNS: Column<Evidence>[] = [
  { key: 'rule', label: 'Rule', render: (e) => e.rule },
  { key: 'class', label: 'Class', render: (e) => e.deviceClass },
  { key: 'weight', label: 'Weight', render: (e) => e.weight.toFixed(2) },
  { key: 'detail', label: 'What answered', render: (e) => <code className="wrap">{e.detail}</code> },
];

/** The Identification panel of an asset a fingerprint has seen; nothing for any other. */
export function Identification({ id }: { id: string }) {
  const provenance = useLoad(() => api<{ data: { fields: FactProvenance[] } }>(`assets/${id}/provenance`), [id]);
  const fields = provenance.data?.data.fields ?? [];
  const fact = fields.find((f) => f.field === 'fingerprintEvidence' && f.source === FINGERPRINT);
  if (!fact) return null;
  const found = fact.value as FingerprintEvidence;
  // The fingerprint's facts kept as evidence only: a source ranked above it won.
  const overridden = fields.flatMap((f) => {
    const mine = f.source === FINGERPRINT ? undefined : f.candidates.find((c) => c.source === FINGERPRINT);
    return mine ? [{ field: f.field, winner: f.source, value: f.value, fingerprint: mine.value }] : [];
  });
  return (
    <section aria-labelledby="identification">
      <h2 id="identification">Identification</h2>
      <dl className="fields">
        <div><dt>Device class</dt><dd className="device-class">{found.deviceClass ?? 'none decided'}</dd></div>
        <div><dt>Confidence</dt><dd>{percent(found.confidence)}</dd></div>
        <div><dt>Operating system</dt><dd>{found.os ? `${[found.os.family, found.os.name].filter(Boolean).join(', ') || '—'}${found.os.from ? ` (from ${found.os.from})` : ''}` : '—'}</dd></div>
        <div><dt>Identified by</dt><dd>{FINGERPRINT}, {new Date(fact.observedAt).toLocaleString()}</dd></div>
      </dl>
      <Table rows={found.evidence} columns={EVIDENCE_COLUMNS} rowKey={(e) => `${e.rule} ${e.detail}`} caption={`The evidence that decided ${found.deviceClass ?? 'nothing'}`} />
      {found.against.length > 0 && <Table rows={found.against} columns={EVIDENCE_COLUMNS} rowKey={(e) => `${e.rule} ${e.detail}`} caption="Evidence for other classes (outweighed)" />}
      {overridden.length > 0 && (
        <Table
          rows={overridden}
          rowKey={(o) => o.field}
          caption="The fingerprint's facts a higher-ranked source overrode"
          columns={[
            { key: 'field', label: 'Fact', render: (o) => factName(o.field) },
            { key: 'winner', label: 'Kept', render: (o) => <><strong>{o.winner}</strong>: {shown(o.value)}</> },
            { key: 'fingerprint', label: 'The fingerprint said', render: (o) => shown(o.fingerprint) },
          ]}
        />
      )}
    </section>
  );
}
