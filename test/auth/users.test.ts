import { signIn } from '../support/api-client.js';
import { ADMIN_PASSWORD, createUser } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

describe('users', () => {
  it('creates the first administrator with a generated password logged once, and never again', async () => {
    const service = await startTestService();
    try {
      const lines = service.logLines.filter((l) => l.includes('created the first administrator'));
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0] as string);
      expect(line).toMatchObject({ level: 'warn', username: 'admin', firstSignIn: expect.any(String) });
      const password = line.firstSignIn as string;
      expect(line.message).not.toContain(password);
      expect(password.length).toBeGreaterThanOrEqual(20);
      const admin = await signIn(service.url, 'admin', password);
      expect((await admin.get('/api/v1/me')).body.data.roles).toEqual(['ADMINISTRATOR', 'API_USER', 'DISCOVERY_ADMIN']);
      await service.running.container.users.ensureAdministrator('admin', undefined);
      expect(service.logLines.filter((l) => l.includes('created the first administrator'))).toHaveLength(1);
      expect((await admin.get('/api/v1/users')).body.total).toBe(1);
    } finally {
      await service.stop();
    }
  });

  describe('administration', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService({ adminPassword: ADMIN_PASSWORD });
    });
    afterAll(() => service.stop());

    it('never logs SERVICE_ADMIN_PASSWORD', () => {
      expect(service.logLines.join('\n')).not.toContain(ADMIN_PASSWORD);
    });

    it('lists users by page with links that keep the other parameters, filters and sorts', async () => {
      const admin = await signIn(service.url, 'admin', ADMIN_PASSWORD);
      for (const name of ['u1', 'u2', 'u3', 'u4']) await createUser(admin, name, ['VIEWER']);
      const page = await admin.get('/api/v1/users?size=2&page=1&role=VIEWER&sort=username,desc');
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ total: 4, page: 1, pageSize: 2, meta: { totalCount: 4, page: 1, size: 2 } });
      expect(page.body.data.map((u: { username: string }) => u.username)).toEqual(['u2', 'u1']);
      const { links } = page.body;
      expect(Object.keys(links).sort()).toEqual(['first', 'last', 'prev']);
      expect(links.first).toBe(`${service.url}/api/v1/users?size=2&page=0&role=VIEWER&sort=username%2Cdesc`);
      expect(new URL(links.prev).searchParams.get('page')).toBe('0');
      expect(new URL(links.last).searchParams.get('page')).toBe('1');
      const capped = await admin.get('/api/v1/users?size=5000');
      expect(capped.body.pageSize).toBe(1000);
      expect(Object.keys(capped.body.links)).toEqual(['first']);
      expect((await admin.get('/api/v1/users?size=0')).status).toBe(400);
      expect((await admin.get('/api/v1/users?sort=passwordHash')).status).toBe(400);
    });

    it('refuses a duplicate user name (whatever its case), a short password and an unknown role', async () => {
      const admin = await signIn(service.url, 'admin', ADMIN_PASSWORD);
      await createUser(admin, 'Eve', ['VIEWER']);
      expect((await admin.post('/api/v1/users', { username: 'eve', password: 'long-enough-password', roles: ['VIEWER'] })).status).toBe(409);
      expect((await admin.post('/api/v1/users', { username: 'frank', password: 'short', roles: ['VIEWER'] })).status).toBe(400);
      expect((await admin.post('/api/v1/users', { username: 'frank', password: 'long-enough-password', roles: ['KING'] })).status).toBe(400);
    });

    it('lets a user change their own password with the current one only', async () => {
      const admin = await signIn(service.url, 'admin', ADMIN_PASSWORD);
      await createUser(admin, 'grace', ['VIEWER']);
      const grace = await signIn(service.url, 'grace', 'a-user-password-1234');
      expect((await grace.put('/api/v1/me/password', { currentPassword: 'wrong', newPassword: 'new-password-12345' })).status).toBe(401);
      expect((await grace.put('/api/v1/me/password', { currentPassword: 'a-user-password-1234', newPassword: 'new-password-12345' })).status).toBe(204);
      await expect(signIn(service.url, 'grace', 'new-password-12345')).resolves.toBeDefined();
    });
  });
});
