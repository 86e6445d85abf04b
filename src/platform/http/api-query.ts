// The query of a request as api.yaml defines it, typed by api-types.ts (generated from api.yaml by
// `npm run api-types`). express-openapi-validator runs before every router: it has refused what
// api.yaml does not allow, coerced numbers, booleans and comma-separated lists, and applied the
// defaults, so this is the one place where Express's untyped `req.query` meets the contract.
import type { Request } from 'express';
import type { operations } from './api-types.js';

type OperationId = keyof operations;

/** One operation's query; for several, the union of their queries. */
type QueryOf<O extends OperationId> = O extends OperationId ? (operations[O] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never) : never;
type KeysOfUnion<U> = U extends unknown ? keyof U : never;
/** Several operations' queries as one: each field typed as in the operations that take it. */
type MergedQuery<U> = { [K in KeysOfUnion<U>]?: U extends unknown ? (K extends keyof U ? U[K] : never) : never };

/** The query of `req`, served by one of `operations` (one router can serve several that share their parameters). */
export function queryOf<O extends OperationId>(req: Request, ..._operations: [O, ...O[]]): MergedQuery<QueryOf<O>> {
  return req.query as MergedQuery<QueryOf<O>>;
}
