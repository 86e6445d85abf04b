// The credential check: a credential tried at one address by its discovery method, from the
// credentials page. After discovery, whose connectors and per-address state it uses.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AuditLog } from '../auth/audit-log.js';
import type { CredentialService } from '../credentials/credential-service.js';
import type { ConnectorEnvironment } from '../discovery/connectors/connector.js';
import { CredentialCheck } from './credential-check.js';
import { credentialCheckRouter } from './credential-check-router.js';

export const credentialCheckFeature = defineFeature({
  name: 'credential-check',
  build: ({ config, credentials, hostState, audit }: Pick<Platform, 'config'> & { credentials: CredentialService; hostState: ConnectorEnvironment['hostState']; audit: AuditLog }) => ({
    credentialCheck: new CredentialCheck(credentials, { config, hostState }, audit),
  }),
  routes: ({ credentialCheck }) => [credentialCheckRouter(credentialCheck)],
});
