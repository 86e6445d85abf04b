// A caller of the started service: anonymous, a bearer token, an integration key header, or a
// browser session (cookie jar plus the CSRF token given at sign-in, sent on unsafe methods).
import { request, type JsonResponse } from './http.js';

export type Credential =
  | { kind: 'anonymous' }
  | { kind: 'bearer'; token: string }
  | { kind: 'key-header'; token: string }
  | { kind: 'session'; cookie: string; csrfToken: string };

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credential: Credential = { kind: 'anonymous' },
    private readonly sendCsrf = true,
  ) {}

  headers(method: string): Record<string, string> {
    const c = this.credential;
    if (c.kind === 'bearer') return { authorization: `Bearer ${c.token}` };
    if (c.kind === 'key-header') return { 'x-integration-api-key': c.token };
    if (c.kind === 'session') {
      const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method);
      return { cookie: c.cookie, ...(unsafe && this.sendCsrf ? { 'x-csrf-token': c.csrfToken } : {}) };
    }
    return {};
  }

  call<T = any>(method: string, path: string, json?: unknown, extraHeaders: Record<string, string> = {}): Promise<JsonResponse<T>> {
    return request<T>(`${this.baseUrl}${path}`, { method, json, headers: { ...this.headers(method), ...extraHeaders } });
  }

  get<T = any>(path: string) {
    return this.call<T>('GET', path);
  }
  post<T = any>(path: string, json?: unknown) {
    return this.call<T>('POST', path, json);
  }
  put<T = any>(path: string, json?: unknown) {
    return this.call<T>('PUT', path, json);
  }
  delete<T = any>(path: string) {
    return this.call<T>('DELETE', path);
  }

  withoutCsrf(): ApiClient {
    return new ApiClient(this.baseUrl, this.credential, false);
  }
}

/** The name=value part of a Set-Cookie header. */
export function cookieOf(setCookie: string | null): string {
  if (!setCookie) throw new Error('no Set-Cookie in the answer');
  return setCookie.split(';')[0] as string;
}

export async function signIn(baseUrl: string, username: string, password: string): Promise<ApiClient> {
  const res = await request(`${baseUrl}/api/v1/auth/login`, { method: 'POST', json: { username, password } });
  if (res.status !== 200) throw new Error(`sign-in of ${username} failed: ${res.status} ${res.text}`);
  return new ApiClient(baseUrl, { kind: 'session', cookie: cookieOf(res.headers.get('set-cookie')), csrfToken: res.body.data.csrfToken });
}
