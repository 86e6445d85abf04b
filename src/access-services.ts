// Users, tokens, the audit trail and the vault, wired on their own: the command line needs only
// these, and loading them without the rest of the service (graph, discovery, jobs) keeps it fast.
// The composition root (container.ts) builds them the same way for the service.
import { ApiTokenService } from './features/auth/api-token-service.js';
import { ApiTokenStore } from './features/auth/api-token-store.js';
import { AuditLog } from './features/auth/audit-log.js';
import { AuditStore } from './features/auth/audit-store.js';
import { AuthService } from './features/auth/auth-service.js';
import { LoginThrottleStore } from './features/auth/login-throttle-store.js';
import { PasswordHasher } from './features/auth/password-hasher.js';
import { TokenLookupCache } from './features/auth/token-lookup-cache.js';
import { UserService } from './features/auth/user-service.js';
import { UserStore } from './features/auth/user-store.js';
import { CredentialService } from './features/credentials/credential-service.js';
import { CredentialStore } from './features/credentials/credential-store.js';
import { VaultCipher } from './features/credentials/vault-cipher.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config.js';
import { loadServiceSecrets, type ServiceSecrets } from './platform/local-secrets.js';
import type { Logger } from './platform/logger.js';
import type { Database } from './platform/postgres/postgres-client.js';

/** Users, tokens, the audit trail and the vault: what the HTTP layer and the command line share. */
export interface AccessServices {
  secrets: ServiceSecrets;
  audit: AuditLog;
  auth: AuthService;
  users: UserService;
  tokens: ApiTokenService;
  credentials: CredentialService;
  /** Tokens seen, trusted only while the service hears PostgreSQL's auth_changes (start-service.ts). */
  tokenLookups: TokenLookupCache;
}

export function createAccessServices(db: Database, config: AppConfig, logger: Logger, clock: Clock = systemClock): AccessServices {
  const secrets = loadServiceSecrets(config, logger);
  const userStore = new UserStore(db);
  const tokenStore = new ApiTokenStore(db);
  const hasher = new PasswordHasher();
  const audit = new AuditLog(db, new AuditStore(db), logger);
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
    credentials: new CredentialService(new CredentialStore(db), new VaultCipher(secrets.vaultKeys), audit, {
      ipv4Prefix: config.credentialsBroadMatchIpv4Prefix,
      ipv6Prefix: config.credentialsBroadMatchIpv6Prefix,
    }),
  };
}
