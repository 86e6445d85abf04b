// Schema: each asset type with its category, parent rule, fields and the custom attribute keys the
// data holds.
import { api } from '../api';
import { States, Table, useLoad, usePageTitle } from '../components/ui';
import type { SchemaEntry } from '../types';

export function SchemaPage() {
  usePageTitle('Schema');
  const schema = useLoad(() => api<{ data: SchemaEntry[] }>('schema/asset-types'), []);
  return (
    <section>
      <h1>Schema</h1>
      <States loaded={schema}>
        {({ data }) => (
          <>
            {data.map((t) => (
              <details key={t.type} className="card">
                <summary>
                  <strong>{t.label}</strong> <code>{t.type}</code> <span className="muted">{t.categoryLabel}{t.synthesized ? ', synthesized' : ''}{t.isRoot ? ', root' : ''}</span>
                </summary>
                <p>Parent: {t.parent ? `${t.parent.parentCategory} by ${[t.parent.via, ...t.parent.viaAlternatives].join(' or ')} (${t.parent.direction})` : 'none (a root type)'}</p>
                {t.childTypes.length > 0 && <p>Children: {t.childTypes.join(', ')}</p>}
                <Table rows={t.typeFields} rowKey={(f) => f.name} columns={[{ key: 'n', label: 'Field', render: (f) => <code>{f.name}</code> }, { key: 't', label: 'Type', render: (f) => f.type }, { key: 'd', label: 'Meaning', render: (f) => f.description }]} />
                <p>Custom attribute keys in the data: {t.customAttributeKeys.join(', ') || 'none'}</p>
              </details>
            ))}
          </>
        )}
      </States>
    </section>
  );
}
