import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { SCAN_ERRORS } from '../../src/features/discovery/connectors/registry.js';
import { SETTINGS } from '../../src/platform/config.js';
import { fromProjectRoot } from '../../src/platform/project-root.js';

describe('README', () => {
  const readme = readFileSync(fromProjectRoot('README.md'), 'utf8');

  it('documents every setting with its environment variable and default', () => {
    for (const s of Object.values(SETTINGS)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${s.key}\` |`));
      expect(row).toBeDefined();
      expect(row).toContain(`\`${s.env}\``);
      if (s.default !== undefined && s.default !== '') expect(row).toContain(`\`${String(s.default)}\``);
    }
  });

  it('names the set-up-and-start and the test commands', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
  });
});

describe('the discovery error codes', () => {
  it('are each explained in docs/discovery.md', () => {
    const doc = readFileSync(fromProjectRoot('docs', 'discovery.md'), 'utf8');
    for (const code of Object.keys(SCAN_ERRORS)) expect(doc).toContain(`| \`${code}\` |`);
  });

  it('are exactly the codes api.yaml lets a run show', () => {
    const doc = parse(readFileSync(fromProjectRoot('api.yaml'), 'utf8'));
    expect(doc.components.schemas.Run.properties.errors.items.properties.code.enum).toEqual(Object.keys(SCAN_ERRORS));
  });
});
