// The query of the user list (GET /users), read by the router and answered by the store.
import type { Role } from './roles.js';

export interface UserQuery {
  page: number;
  size: number;
  sort: { field: 'username' | 'createdAt' | 'lastLoginAt'; direction: 'asc' | 'desc' };
  q?: string;
  role?: Role;
  disabled?: boolean;
}
