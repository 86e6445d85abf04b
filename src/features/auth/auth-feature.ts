// The auth feature: users, tokens and integration keys, the audit trail and the service's secrets,
// and their routes. It needs only PostgreSQL and the settings, so that the command line
// (src/cli.ts) builds it without the rest of the service.
import { defineFeature } from '../../platform/feature.js';
import { loadServiceSecrets } from '../../platform/local-secrets.js';
import type { Platform } from '../../platform/platform.js';
import { ApiTokenService } from './api-token-service.js';
import { ApiTokenStore } from './api-token-store.js';
import { AuditLog } from './audit-log.js';
import { auditRouter } from './audit-router.js';
import { AuditStore } from './audit-store.js';
import { authRouter } from './auth-router.js';
import { AuthService } from './auth-service.js';
import { sessionCookiePath } from './authentication-middleware.js';
import { integrationKeyRouter } from './integration-key-router.js';
import { LoginThrottleStore } from './login-throttle-store.js';
import { PasswordHasher } from './password-hasher.js';
import { TokenLookupCache } from './token-lookup-cache.js';
import { userRouter } from './user-router.js';
import { UserService } from './user-service.js';
import { UserStore } from './user-store.js';

export const authFeature = defineFeature({
  name: 'auth',
  build({ db, config, logger, clock }: Pick<Platform, 'db' | 'config' | 'logger' | 'clock'>) {
    const secrets = loadServiceSecrets(config, logger);
    const userStore = new UserStore(db);
    const tokenStore = new ApiTokenStore(db);
    const hasher = new PasswordHasher();
    const audit = new AuditLog(db, new AuditStore(db), logger);
    // Tokens seen, trusted only while the service hears PostgreSQL's auth_changes (start-service.ts).
    const tokenLookups = new TokenLookupCache();
    return {
      secrets,
      audit,
      auth: new AuthService(userStore, tokenStore, new LoginThrottleStore(db), hasher, audit, {
        tokenPepper: secrets.tokenPepper,
        loginMaxFailures: config.loginMaxFailures,
        loginLockoutMinutes: config.loginLockoutMinutes,
      }, tokenLookups, clock),
      users: new UserService(userStore, hasher, audit, logger, tokenLookups),
      tokens: new ApiTokenService(tokenStore, userStore, audit, secrets.tokenPepper, tokenLookups, clock),
      tokenLookups,
    };
  },
  routes: ({ auth, users, tokens, audit, config }) => [
    authRouter(auth, users, tokens, sessionCookiePath(config.contextPath)),
    userRouter(users, tokens),
    integrationKeyRouter(tokens),
    auditRouter(audit),
  ],
});
