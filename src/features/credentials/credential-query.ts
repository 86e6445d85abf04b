// The query of the credential list (GET /credentials), read by the router and answered by the store.
import type { CredentialKind } from './credential-kinds.js';

export interface CredentialQuery {
  page: number;
  size: number;
  sort: { field: 'name' | 'kind' | 'createdAt' | 'updatedAt'; direction: 'asc' | 'desc' };
  kinds?: CredentialKind[];
  q?: string;
}
