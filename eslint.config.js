// ESLint keeps the boundaries of docs/architecture.md by machine (test/platform/lint.test.ts runs it
// over src/ in `npm test`): routers reach data through services and read models, never through a
// store; a feature reaches another feature's data through that feature's service, never its store;
// no import cycles, type-only imports included; and the project's names (kebab-case files,
// PascalCase types, camelCase functions).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import ts from 'typescript';
import tseslint from 'typescript-eslint';

const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
const stores = ['*-store.ts', '*-repository.ts'];

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

const root = path.dirname(fileURLToPath(import.meta.url));
const sourceDir = path.join(root, 'src') + path.sep;
const compilerOptions = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, root).options;

/**
 * The src files a module imports or re-exports from, resolved as tsc does, each with whether it
 * brings values (`import type`, or `{ type A, type B }` alone, brings none) and where it is written.
 */
function importsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const typeOnly = (clause) => clause.isTypeOnly || (!clause.name && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly));
  const out = [];
  for (const statement of source.statements) {
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
    const target = ts.resolveModuleName(specifier.text, file, compilerOptions, ts.sys).resolvedModule?.resolvedFileName;
    if (!target?.startsWith(sourceDir)) continue;
    const values = ts.isImportDeclaration(statement)
      ? !(statement.importClause && typeOnly(statement.importClause))
      : !(statement.isTypeOnly || (statement.exportClause && ts.isNamedExports(statement.exportClause) && statement.exportClause.elements.length > 0 && statement.exportClause.elements.every((e) => e.isTypeOnly)));
    out.push({ target: path.normalize(target), values, start: statement.getStart(source), end: statement.getEnd() });
  }
  return out;
}

// The imports of the files on disk, read once per version of each file.
const importsOnDisk = new Map();
function importsOfFile(file) {
  const { mtimeMs } = statSync(file);
  const known = importsOnDisk.get(file);
  if (known?.mtimeMs === mtimeMs) return known.imports;
  const imports = importsOf(file, readFileSync(file, 'utf8'));
  importsOnDisk.set(file, { mtimeMs, imports });
  return imports;
}

/**
 * No import cycle closes through a type-only import. import-x/no-cycle follows imports of values
 * only, so a circle of modules that names a type on one of its arcs escapes it, yet it is a knot
 * all the same (the modules cannot be understood, moved or tested apart). This rule reads the
 * graph with the type imports counted and reports an import whose target leads back to the file,
 * unless the cycle is one of values, which import-x reports already.
 */
const typeImportCycles = {
  meta: { type: 'problem', schema: [], messages: { cycle: 'Import cycle through a type-only import: {{route}}.' } },
  create(context) {
    const file = path.normalize(context.physicalFilename);
    if (!file.startsWith(sourceDir)) return {};
    const name = (f) => path.relative(root, f);
    return {
      Program() {
        const own = importsOf(file, context.sourceCode.text);
        const edges = (f) => (f === file ? own : importsOfFile(f));
        // The route from `from` back to this file, following values only or every import.
        const routeBack = (from, valuesOnly) => {
          const cameFrom = new Map([[from, null]]);
          for (const queue = [from]; queue.length; ) {
            const at = queue.shift();
            for (const { target, values } of edges(at)) {
              if ((valuesOnly && !values) || cameFrom.has(target)) continue;
              cameFrom.set(target, at);
              if (target === file) {
                const route = [];
                for (let f = target; f !== null; f = cameFrom.get(f)) route.unshift(name(f));
                return route;
              }
              queue.push(target);
            }
          }
          return undefined;
        };
        for (const { target, values, start, end } of own) {
          const route = routeBack(target, false);
          if (!route || (values && routeBack(target, true))) continue;
          const loc = { start: context.sourceCode.getLocFromIndex(start), end: context.sourceCode.getLocFromIndex(end) };
          context.report({ loc, messageId: 'cycle', data: { route: [name(file), ...route].join(' -> ') } });
        }
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
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importX, project: { rules: { 'kebab-case-files': kebabCaseFiles, 'type-import-cycles': typeImportCycles } } },
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
      'project/type-import-cycles': 'error',
      'import-x/no-restricted-paths': ['error', {
        zones: [
          {
            target: './src/**/*-router.ts',
            from: [...stores.map((s) => `./src/**/${s}`), './src/platform/postgres/**', './src/platform/neo4j/**'],
            message: 'A router calls services and read models, never a store.',
          },
          ...features.map((feature) => ({
            target: `./src/features/${feature}/**`,
            from: stores.map((s) => `./src/features/!(${feature})/**/${s}`),
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
