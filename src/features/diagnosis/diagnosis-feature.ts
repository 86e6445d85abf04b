// The diagnosis feature: why a run finished with errors, from the rules or from the configured
// model endpoint (service.ai.*).
import type { AppConfig } from '../../platform/config.js';
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AuditLog } from '../auth/audit-log.js';
import type { CredentialKindLookup } from '../credentials/credential-kinds.js';
import type { RunHistory } from '../discovery/run-record.js';
import type { TargetLookup } from '../discovery/target-record.js';
import { ChatCompletionsProvider } from './chat-completions-provider.js';
import type { DiagnosisProvider } from './diagnosis-provider.js';
import { diagnosisRouter } from './diagnosis-router.js';
import { DiagnosisService } from './diagnosis-service.js';
import { DiagnosisStore } from './diagnosis-store.js';
import { RulesProvider } from './rules-provider.js';

type Needs = Platform & { audit: AuditLog; runs: RunHistory; targetLookup: TargetLookup; credentialKinds: CredentialKindLookup };

function diagnosisProvider(config: AppConfig): DiagnosisProvider {
  if (config.aiProvider === 'rules') return new RulesProvider();
  // loadConfig made sure that this provider has its base URL and model.
  return new ChatCompletionsProvider({ baseUrl: config.aiBaseUrl as string, model: config.aiModel as string, apiKey: config.aiApiKey, timeoutMs: config.aiTimeoutMs });
}

export const diagnosisFeature = defineFeature({
  name: 'diagnosis',
  build: ({ db, config, logger, audit, runs, targetLookup, credentialKinds }: Needs) => ({
    diagnosis: new DiagnosisService(config.aiEnabled, diagnosisProvider(config), new DiagnosisStore(db), runs, targetLookup, credentialKinds, audit, logger),
  }),
  routes: ({ diagnosis }) => [diagnosisRouter(diagnosis)],
});
