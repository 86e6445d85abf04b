// Every JSON response checked against api.yaml (the setting validateResponses: the tests turn it
// on, so that an answer that strays from the contract fails the test that caused it). The document
// is given to ajv once, as one schema, and each response's schema is compiled from it by its JSON
// pointer at its first use, its references shared with the others': express-openapi-validator's
// own response check copies the document's components into every response schema it compiles,
// which cost the tests seconds of CPU at every start of the service. As the validator did, only
// res.json answers below 500 are checked (problem answers are written by the problem handler).
import type { RequestHandler, Response } from 'express';
import ajvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv-draft-04';
import { UUID_PATTERN } from '../uuid.js';

/** A response that api.yaml does not allow: a fault of the service, answered as a 500. */
export class ResponseContractError extends Error {
  override name = 'ResponseContractError';
}

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}

type Operation = { responses?: Record<string, ResponseObject> };
/** The parts of api.yaml read here (openapi.ts's OpenApiDocument). */
type ApiDocument = { paths: Record<string, unknown>; components?: unknown };

const pointerPart = (part: string) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1'));
const pointer = (...parts: string[]) => `api#/${parts.map(pointerPart).join('/')}`;

/** The media type of a Content-Type header, without its parameters. */
const mediaType = (header: unknown) => (typeof header === 'string' ? (header.split(';')[0] ?? '').trim().toLowerCase() : undefined);

export function responseValidation(doc: ApiDocument, contextPath: string): RequestHandler {
  // OpenAPI 3.0's schemas are JSON Schema draft 4 (boolean exclusiveMinimum); its own keywords
  // (example, discriminator, readOnly, ...) are annotations here (strict: false).
  // Both packages are CommonJS: their class and plugin are the `default` of the module here.
  const ajv = new ajvDraft04.default({ strict: false, allErrors: true, validateSchema: false, formats: { uuid: UUID_PATTERN } });
  ajvFormats.default(ajv, { mode: 'full', keywords: false, formats: ['date', 'date-time', 'uri'] });
  ajv.addSchema(doc, 'api');
  const base = contextPath.replace(/\/+$/, '');
  // One per response of the document at most: keyed by its pointer.
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (at: string) => {
    let validate = validators.get(at);
    if (!validate) {
      validate = ajv.getSchema(at);
      if (!validate) throw new ResponseContractError(`api.yaml has no schema at ${at}`);
      validators.set(at, validate);
    }
    return validate;
  };

  /** What is wrong with the body as the response of this route, if anything. */
  function violation(route: string, method: string, res: Response, body: unknown): string | undefined {
    const path = route.startsWith(base) ? route.slice(base.length) || '/' : route;
    const operation = (doc.paths[path] as Record<string, Operation> | undefined)?.[method];
    const responses = operation?.responses ?? {};
    const status = String(res.statusCode);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) return `api.yaml documents no response ${status} for ${method.toUpperCase()} ${path}`;
    let response = responses[key] as ResponseObject;
    let at = ['paths', path, method, 'responses', key];
    if (response.$ref) {
      const name = response.$ref.replace('#/components/responses/', '');
      response = ((doc.components as { responses?: Record<string, ResponseObject> } | undefined)?.responses?.[name]) ?? {};
      at = ['components', 'responses', name];
    }
    const types = Object.keys(response.content ?? {}).filter((t) => response.content?.[t]?.schema !== undefined);
    if (!types.length) return body === undefined ? undefined : `response ${status} of ${method.toUpperCase()} ${path} has no body in api.yaml`;
    if (body === undefined || body === null) return `response ${status} of ${method.toUpperCase()} ${path} needs a body`;
    const sent = mediaType(res.getHeader('content-type'));
    const type = types.find((t) => t === sent) ?? (types[0] as string);
    const validate = validatorAt(pointer(...at, 'content', type, 'schema'));
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is not allowed'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
    return `response ${status} of ${method.toUpperCase()} ${path} does not match api.yaml: ${errors.join('; ')}`;
  }

  return (req, res, next) => {
    const route = (req as { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute;
    if (!route) {
      next();
      return;
    }
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      res.json = json;
      if (res.headersSent || res.statusCode >= 500) return json(body);
      const wrong = violation(route, req.method.toLowerCase(), res, body);
      if (wrong) {
        next(new ResponseContractError(wrong));
        return res;
      }
      return json(body);
    };
    next();
  };
}
