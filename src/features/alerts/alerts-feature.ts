// The alerts feature: the team-chat alert of a run that finished with errors, with its diagnosis.
// Its follow-up joins discovery's run listeners, so that discovery never names it.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { DiagnosisService } from '../diagnosis/diagnosis-service.js';
import type { RunHistory } from '../discovery/run-record.js';
import type { RunListeners } from '../discovery/run-listener.js';
import { alertRouter } from './alert-router.js';
import { AlertService } from './alert-service.js';
import { AlertStore } from './alert-store.js';
import { RunFollowUp } from './run-follow-up.js';

type Needs = Platform & { runs: RunHistory; runListeners: RunListeners; diagnosis: DiagnosisService };

export const alertsFeature = defineFeature({
  name: 'alerts',
  build({ db, config, logger, scheduler, runs, runListeners, diagnosis }: Needs) {
    const alerts = new AlertService({
      webhookUrl: config.alertWebhookUrl,
      format: config.alertWebhookFormat,
      maxAttempts: config.alertMaxAttempts,
      retryDelayMs: config.alertRetryDelayMs,
      timeoutMs: config.alertTimeoutMs,
      linkBase: `${config.publicUrl}${config.contextPath}`,
    }, new AlertStore(db), runs, diagnosis, logger);
    const followUp = new RunFollowUp(scheduler, diagnosis, alerts, logger);
    runListeners.add(followUp);
    return { alerts, followUp };
  },
  routes: ({ alerts }) => [alertRouter(alerts)],
  jobs: ({ followUp }) => followUp.register(),
});
