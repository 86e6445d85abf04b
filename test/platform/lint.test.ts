// ESLint (eslint.config.js) over src/ finds nothing: routers stay away from stores, features away
// from other features' stores, no import cycles (type-only imports counted), and the project's
// names. The rules are shown to bite on code that breaks them, so that a silently disabled rule
// would fail here too.
import { ESLint } from 'eslint';
import { fromProjectRoot } from '../../src/platform/project-root.js';

const eslint = new ESLint({ cwd: fromProjectRoot() });
const findings = (results: ESLint.LintResult[]) =>
  results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(fromProjectRoot().length + 1)}:${m.line} ${m.ruleId ?? 'parse'}: ${m.message}`));

describe('ESLint', () => {
  it('finds nothing in src/', async () => {
    expect(findings(await eslint.lintFiles(['src']))).toEqual([]);
  }, 300_000);

  it('refuses a router that imports a store, and a feature that imports another feature\'s repository', async () => {
    const router = await eslint.lintText("import type { UserStore } from './user-store.js';\nexport type Users = UserStore;\n", { filePath: fromProjectRoot('src/features/auth/team-router.ts') });
    const feature = await eslint.lintText("import type { AssetGraphRepository } from '../assets/asset-graph-repository.js';\nexport type Assets = AssetGraphRepository;\n", { filePath: fromProjectRoot('src/features/topology/neighbour-service.ts') });
    expect(findings([...router, ...feature]).map((f) => f.split(' ')[1])).toEqual(['import-x/no-restricted-paths:', 'import-x/no-restricted-paths:']);
  }, 120_000);

  it('refuses an import cycle and names that break the conventions', async () => {
    // asset-graph-repository.ts imports asset-taxonomy.ts: the taxonomy importing it back closes a cycle.
    const cycle = await eslint.lintText("import { AssetGraphRepository } from '../assets/asset-graph-repository.js';\nexport const REPOSITORY = AssetGraphRepository;\n", { filePath: fromProjectRoot('src/features/inventory/asset-taxonomy.ts') });
    const names = await eslint.lintText('export interface row { id: string }\nexport function Load_Rows(): row[] { return []; }\n', { filePath: fromProjectRoot('src/features/assets/AssetRows.ts') });
    expect(findings(cycle).map((f) => f.split(' ')[1])).toContain('import-x/no-cycle:');
    expect(findings(names).map((f) => f.split(' ')[1]).sort()).toEqual(['@typescript-eslint/naming-convention:', '@typescript-eslint/naming-convention:', 'project/kebab-case-files:']);
  }, 120_000);

  it('refuses an import cycle that closes through a type-only import, which import-x/no-cycle does not follow', async () => {
    // relationship-row.ts imports the taxonomy's values: the taxonomy naming a type of it closes a cycle.
    const cycle = await eslint.lintText("import type { RelationshipRow } from '../relationships/relationship-row.js';\nexport type Row = RelationshipRow;\n", { filePath: fromProjectRoot('src/features/inventory/asset-taxonomy.ts') });
    expect(findings(cycle).map((f) => f.split(' ')[1])).toEqual(['project/type-import-cycles:']);
  }, 120_000);
});
