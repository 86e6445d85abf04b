// Four patches to express-openapi-validator 5.6 (pinned in package.json), each of work that it
// repeats at every start or request and that gives nothing here. Each checks the internal it
// replaces and fails the start at once when an upgrade moved it.
import { createRequire } from 'node:module';
// Imported, not required: the validator must see the patched objects, also in the tests' own
// module registry. Each is a CommonJS module whose default import is its exports object.
import frameworkModule from 'express-openapi-validator/dist/framework/index.js';
import schemaValidatorModule from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';
import preprocessorModule from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
import pathToRegexpModule from 'path-to-regexp';

// Compiled route patterns kept (compileRoutePatternsOnce).
const ROUTE_PATTERNS_KEPT = 1000;

/** The member of one of the validator's modules that a patch replaces, or the start fails. */
function internal<T>(exported: object, member: string): T {
  if (typeof (exported as Record<string, unknown>)[member] !== 'function') throw new Error(`express-openapi-validator: the internal ${member} has moved`);
  return exported as T;
}

type PathToRegexp = typeof pathToRegexpModule.pathToRegexp & { compiledOnce?: true };

/**
 * express-openapi-validator 5.6 finds a request's api.yaml path by compiling the pattern of each
 * path it tries, in turn, on every request (upstream pull request #1217, not released): some
 * 100-150 µs for a path late in the document. Its patterns are the document's paths, so each is
 * compiled once here, in the module that the validator calls: package.json names path-to-regexp
 * beside it so that npm installs one copy, and a start with two copies fails at once. A compiled
 * pattern is only read: its regexp has no global flag, so exec keeps no state between requests.
 */
function compileRoutePatternsOnce(): void {
  const here = createRequire(import.meta.url);
  if (createRequire(here.resolve('express-openapi-validator')).resolve('path-to-regexp') !== here.resolve('path-to-regexp')) {
    throw new Error('express-openapi-validator: its path-to-regexp is not the copy that package.json names');
  }
  const compile: PathToRegexp = pathToRegexpModule.pathToRegexp;
  if (compile.compiledOnce) return;
  const compiled = new Map<string, ReturnType<PathToRegexp>>();
  const once: PathToRegexp = (pattern, options = {}) => {
    if (typeof pattern !== 'string' || Object.keys(options).some((k) => k !== 'sensitive' && k !== 'strict')) return compile(pattern, options);
    const key = `${options.sensitive ? 's' : '-'}${(options as { strict?: boolean }).strict ? 's' : '-'}${pattern}`;
    let value = compiled.get(key);
    if (!value) {
      value = compile(pattern, options);
      // Bounded, should another caller pass paths of its own: the document has some 60.
      if (compiled.size < ROUTE_PATTERNS_KEPT) compiled.set(key, value);
    }
    return value;
  };
  once.compiledOnce = true;
  pathToRegexpModule.pathToRegexp = once;
}

interface Preprocessor {
  prototype: { resolveSchema(this: { apiDoc: unknown; resolvedSchemaCache: Map<string, unknown> }, schema: unknown): unknown; pointerLookup?: true };
}

/** The value at a local JSON pointer (`#/components/schemas/Asset`) of the document. */
function atPointer(doc: unknown, ref: string): unknown {
  let at = doc;
  for (const token of ref.replace(/^#\/?/, '').split('/')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return at;
}

/**
 * At every start, the validator's schema preprocessor resolves each `$ref` it meets through an ajv
 * instance of its own: `ajv.getSchema(ref).schema`. That compiles the referenced schema (and all it
 * references) only to hand back the object it was given, the document's own: about 0.8 s of CPU
 * at each start here, three quarters of the validator's part. The same object is read here by its
 * pointer, which is where the validator itself looks when ajv knows no such schema.
 */
function resolveReferencesByPointer(): void {
  const { SchemaPreprocessor } = internal<{ SchemaPreprocessor: Preprocessor }>(preprocessorModule, 'SchemaPreprocessor');
  if (typeof SchemaPreprocessor.prototype.resolveSchema !== 'function') throw new Error('express-openapi-validator: SchemaPreprocessor has no resolveSchema');
  if (SchemaPreprocessor.prototype.pointerLookup) return;
  SchemaPreprocessor.prototype.resolveSchema = function resolveSchema(schema) {
    if (!schema) return null;
    const ref = (schema as { $ref?: unknown }).$ref;
    if (typeof ref !== 'string') return schema;
    if (!this.resolvedSchemaCache.has(ref)) this.resolvedSchemaCache.set(ref, atPointer(this.apiDoc, ref));
    return this.resolvedSchemaCache.get(ref);
  };
  SchemaPreprocessor.prototype.pointerLookup = true;
}

interface SchemaValidatorModule {
  OpenAPISchemaValidator: new (options: { version: string; validateApiSpec: boolean }) => { validate(doc: unknown): { errors: unknown[] } };
}

/**
 * The validator compiles the OpenAPI 3 meta-schema at every start even when it is told not to
 * validate the document (validateApiSpec false: the lint test checks api.yaml instead), about 0.2 s
 * of CPU. The compiled check is made at its first use instead, which then never comes.
 */
function compileMetaSchemaOnUse(): void {
  const exported = internal<SchemaValidatorModule & { onUse?: true }>(schemaValidatorModule, 'OpenAPISchemaValidator');
  if (exported.onUse) return;
  const eagerValidator = exported.OpenAPISchemaValidator;
  exported.OpenAPISchemaValidator = class {
    private compiled?: InstanceType<typeof eagerValidator>;
    constructor(private readonly options: { version: string; validateApiSpec: boolean }) {}
    validate(doc: unknown): { errors: unknown[] } {
      this.compiled ??= new eagerValidator(this.options);
      return this.compiled.validate(doc);
    }
  };
  exported.onUse = true;
}

interface Framework {
  prototype: { loadSpec(this: unknown, spec: unknown, refParser?: unknown): Promise<unknown>; inMemory?: true };
}

/**
 * The validator hands the document to json-schema-ref-parser's bundle at every start, to gather
 * external references into it. The document given here is api.yaml already parsed, whose
 * references are all internal: bundle answers the same object unchanged (a test checks it) after
 * some 0.1-0.2 s of CPU. A document given as an object is taken as it is.
 */
function takeDocumentAsGiven(): void {
  const { OpenAPIFramework } = internal<{ OpenAPIFramework: Framework }>(frameworkModule, 'OpenAPIFramework');
  const bundle = OpenAPIFramework.prototype.loadSpec;
  if (typeof bundle !== 'function') throw new Error('express-openapi-validator: OpenAPIFramework has no loadSpec');
  if (OpenAPIFramework.prototype.inMemory) return;
  OpenAPIFramework.prototype.loadSpec = function loadSpec(spec, refParser) {
    return spec !== null && typeof spec === 'object' ? Promise.resolve(spec) : bundle.call(this, spec, refParser);
  };
  OpenAPIFramework.prototype.inMemory = true;
}

/** Applies the patches (once per process; later calls find them in place). */
export function patchOpenApiValidator(): void {
  compileRoutePatternsOnce();
  resolveReferencesByPointer();
  compileMetaSchemaOnUse();
  takeDocumentAsGiven();
}
