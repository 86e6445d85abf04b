// ESLint keeps the boundaries of docs/architecture.md by machine (test/platform/lint.test.ts runs it
// over src/ in `npm test`): routers reach data through services and read models, never through a
// store; a feature reaches another feature's data through that feature's service, never its store;
// no import cycles; and the project's names (kebab-case files, PascalCase types, camelCase functions).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
const stores = ['*-store.ts', '*-repository.ts'];
// The ingestion core (identity, graph load, sub-record load) is the one shared write path: import
// drives its stores, and it writes the sub-record tables through the subrecords store.
const sharedStores = { import: ['ingestion'], ingestion: ['subrecords'] };

/** A file is named after its main export in kebab-case (`asset-service.ts`, `net-snmp.d.ts`). */
const kebabCaseFiles = {
  meta: { type: 'suggestion', schema: [], messages: { name: 'File name "{{name}}" is not kebab-case.' } },
  create(context) {
    return {
      Program(node) {
        const name = path.basename(context.filename);
        if (!/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)+$/.test(name)) context.report({ node, messageId: 'name', data: { name } });
      },
    };
  },
};

export default tseslint.config(
  // Generated from api.yaml by `npm run api-types`.
  { ignores: ['src/platform/http/api-types.ts'] },
  {
    files: ['src/**/*.ts', 'src/**/*.mjs'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importX, project: { rules: { 'kebab-case-files': kebabCaseFiles } } },
    settings: {
      // import-x reads the imported modules too (for no-cycle): as TypeScript, resolved as tsc does.
      'import-x/extensions': ['.ts', '.mjs', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'project/kebab-case-files': 'error',
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', {
        zones: [
          {
            target: './src/**/*-router.ts',
            from: [...stores.map((s) => `./src/**/${s}`), './src/platform/postgres/**', './src/platform/neo4j/**'],
            message: 'A router calls services and read models, never a store.',
          },
          ...features.map((feature) => ({
            target: `./src/features/${feature}/**`,
            from: stores.map((s) => `./src/features/!(${[feature, ...(sharedStores[feature] ?? [])].join('|')})/**/${s}`),
            message: `The ${feature} feature reaches another feature's data through its service or read model, never its store.`,
          })),
        ],
      }],
      '@typescript-eslint/naming-convention': ['error',
        { selector: 'typeLike', format: ['PascalCase'] },
        { selector: ['function', 'method', 'accessor'], format: ['camelCase'] },
        // Node's stream classes are extended through `_transform` and `_flush`.
        { selector: 'method', modifiers: ['override'], format: ['camelCase'], leadingUnderscore: 'allow' },
        // Keys that need quotes are data (a job's name), not identifiers.
        { selector: 'objectLiteralMethod', modifiers: ['requiresQuotes'], format: null },
        { selector: 'parameter', format: ['camelCase'], leadingUnderscore: 'allow' },
        // Constants may be UPPER_CASE; `_` marks a field left out of a rest (`{ _id, ...rest }`).
        { selector: 'variable', format: ['camelCase', 'UPPER_CASE'], leadingUnderscore: 'allow' },
        // A destructured name is another module's (`const { pg_ctl } = ...`).
        { selector: 'variable', modifiers: ['destructured'], format: null },
      ],
    },
  },
);
