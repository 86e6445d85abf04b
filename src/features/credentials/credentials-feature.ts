// The credentials feature: the vault of the credentials discovery uses, and its routes. The
// command line builds it beside auth (src/cli.ts), as the service does.
import { defineFeature } from '../../platform/feature.js';
import type { ServiceSecrets } from '../../platform/local-secrets.js';
import type { Platform } from '../../platform/platform.js';
import type { AuditLog } from '../auth/audit-log.js';
import type { CredentialKindLookup } from './credential-kinds.js';
import { credentialRouter } from './credential-router.js';
import { CredentialService } from './credential-service.js';
import { CredentialStore } from './credential-store.js';
import { VaultCipher } from './vault-cipher.js';

export const credentialsFeature = defineFeature({
  name: 'credentials',
  build({ db, config, secrets, audit }: Pick<Platform, 'db' | 'config'> & { secrets: ServiceSecrets; audit: AuditLog }) {
    const store = new CredentialStore(db);
    // The kind of each credential (for diagnosis), never its secret.
    const credentialKinds: CredentialKindLookup = store;
    return {
      credentials: new CredentialService(store, new VaultCipher(secrets.vaultKeys), audit, {
        ipv4Prefix: config.credentialsBroadMatchIpv4Prefix,
        ipv6Prefix: config.credentialsBroadMatchIpv6Prefix,
      }),
      credentialKinds,
    };
  },
  routes: ({ credentials }) => [credentialRouter(credentials)],
});
