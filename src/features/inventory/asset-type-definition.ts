// What the asset taxonomy says of a type (docs/interface.md §2.3, 2.4, 2.7), apart from the table
// of types: the sub-record kinds declare the entries of their synthesized types with it, and the
// taxonomy lists them with its own.
import type { components } from '../../platform/http/api-types.js';
import type { Category } from './asset-categories.js';
import type { RelationshipType } from './relationship-types.js';

export interface ParentRule {
  /** Edge types in order of preference; the first is the documented `via`. */
  via: [RelationshipType, ...RelationshipType[]];
  /** IN: the parent points at the asset; OUT: the asset points at its parent. */
  direction: 'IN' | 'OUT';
  /** Types or categories a parent may have. */
  parentKinds: string[];
}

export type TypeField = components['schemas']['TypeField'];

export interface TypeDefinition {
  category: Category;
  label: string;
  parent?: ParentRule;
  childTypes?: string[];
  fields?: TypeField[];
}

export const field = (name: string, type: string, description: string): TypeField => ({ name, type, description });

/** The parent rule of what runs on a host: RUNS_ON it. */
export const ON_HOST: ParentRule = { via: ['RUNS_ON'], direction: 'OUT', parentKinds: ['HOST'] };
