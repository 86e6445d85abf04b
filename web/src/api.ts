// The one way the UI talks to the service: the public API under the page's base, the session
// cookie, the CSRF token on unsafe methods, and problem details turned into errors that say what
// went wrong (never a stack: the service sends none).
export const API_BASE = new URL('api/v1/', document.baseURI).pathname;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly fields: { path: string; message: string }[] = [],
  ) {
    super(detail || title);
  }
}

let csrfToken: string | undefined;

/** Kept from sign-in or /me; sent with every unsafe request. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Listeners told when a request finds the session gone (the app returns to sign-in). */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** An API path (relative to /api/v1/, or an absolute link the API gave) as a URL of this origin. */
export function apiUrl(path: string): string {
  if (/^https?:/.test(path)) {
    const link = new URL(path);
    return `${link.pathname}${link.search}`;
  }
  return `${API_BASE}${path.replace(/^\//, '')}`;
}

export async function api<T = unknown>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(apiUrl(path), { method, headers, credentials: 'same-origin', body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  } catch {
    throw new ApiError(0, 'Network error', 'The service could not be reached.');
  }
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('json') ? await res.json().catch(() => undefined) : undefined;
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('auth/login')) for (const listener of unauthorizedListeners) listener();
    const problem = (body ?? {}) as { title?: string; detail?: string; errors?: { path: string; message: string }[] };
    throw new ApiError(res.status, problem.title ?? res.statusText, problem.detail ?? '', problem.errors ?? []);
  }
  return body as T;
}

/** A query string of the defined values; arrays comma-separated, as the API reads them. */
export function query(params: Record<string, string | number | boolean | string[] | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    search.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  pageSize: number;
  links: { first: string; prev?: string; next?: string; last?: string };
}
