// The relationship types of the graph (docs/interface.md §2.5): the edges a bundle may carry, the
// parent rules of the taxonomy name, and the lists filter by.
export const RELATIONSHIP_TYPES = ['RUNS_ON', 'HOSTS_VM', 'HOSTS_CONTAINER', 'MANAGED_BY', 'CONTAINS', 'USES_DATASTORE', 'HAS_INTERFACE', 'COMMUNICATES_WITH'] as const;
export type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];
