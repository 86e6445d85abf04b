import { LEASE_EXPIRED } from '../../src/features/discovery/discovery-jobs.js';
import type { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { chatCompletionsServer, closedPort, completion, httpStatus, webhookReceiver, type ReceivedRequest, type RecordingServer } from '../support/outside-services.js';
import { ADMIN_PASSWORD, createPrincipals, type Principals } from '../support/principals.js';
import { startTestService, type TestService } from '../support/test-stores.js';

// Incoming-webhook URLs carry their secret in the path, as Slack's and Teams' do.
const HOOK_PATH = '/services/T0LAB/B0ALERTS/hook-secret-3b9c1e77';
const PUBLIC_URL = 'https://inventory.example.test';
const CONTEXT_PATH = '/inventory';

const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Scans a new target and answers the run once it has finished. */
async function scan(api: ApiClient, name: string, addresses: string[]): Promise<any> {
  const target = (await api.post('/api/v1/discovery/targets', { name, addresses, methods: ['SWEEP'] })).body.data;
  const runId = (await api.post(`/api/v1/discovery/targets/${target.id}/scan`)).body.data.id;
  return (await eventually(() => api.get(`/api/v1/discovery/runs/${runId}`), (r) => !['QUEUED', 'RUNNING'].includes(r.body.data.status), 'the run')).body.data;
}

const alertOf = (api: ApiClient, runId: string, status: string) =>
  eventually(() => api.get(`/api/v1/runs/${runId}/alert`), (r) => r.body.data.status === status, `the alert of run ${runId}`).then((r) => r.body.data);

const messagesAbout = (hook: RecordingServer, runId: string): ReceivedRequest[] => hook.received.filter((r) => JSON.stringify(r.body).includes(runId));

describe('alerts to a Slack-style webhook', () => {
  let hook: RecordingServer;
  let service: TestService;
  let p: Principals;
  let api: ApiClient;
  const answers: string[] = [];

  beforeAll(async () => {
    hook = await webhookReceiver();
    service = await startTestService({
      adminPassword: ADMIN_PASSWORD, aiEnabled: true, alertWebhookUrl: `${hook.url}${HOOK_PATH}`, alertMaxAttempts: 3, alertRetryDelayMs: 50,
      publicUrl: PUBLIC_URL, contextPath: CONTEXT_PATH,
    });
    p = await createPrincipals(service.url);
    api = p.discoveryAdminSession;
  });
  afterAll(async () => {
    await service.stop();
    await hook.close();
  });

  it('posts the target, the status, the error count by code, the link and the diagnosis when a scan finishes with errors', async () => {
    const run = await scan(api, 'lab <east> & co', ['no-such-host.invalid', 'other-host.invalid']);
    expect(run.status).toBe('COMPLETED_WITH_ERRORS');
    const alert = await alertOf(p.viewer, run.id, 'DELIVERED');
    expect(alert).toEqual({ runId: run.id, status: 'DELIVERED', format: 'slack', attempts: 1, lastAttemptAt: expect.any(String), nextAttemptAt: null, deliveredAt: expect.any(String), lastError: null });
    // The alert went out after the run had ended, in a job of its own.
    expect(Date.parse(alert.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(run.finishedAt));

    const [message, ...more] = messagesAbout(hook, run.id);
    expect(more).toEqual([]);
    expect(message?.url).toBe(HOOK_PATH);
    expect(message?.headers['content-type']).toContain('application/json');
    const link = `${PUBLIC_URL}${CONTEXT_PATH}/api/v1/discovery/runs/${run.id}`;
    expect(message?.body.text).toContain('lab &lt;east&gt; &amp; co');
    expect(message?.body.text).toContain('COMPLETED_WITH_ERRORS');
    expect(message?.body.text).toContain('DNS_FAILURE: 2');
    expect(message?.body.text).toContain(link);
    const blocks = JSON.stringify(message?.body.blocks);
    const diagnosis = (await api.get(`/api/v1/runs/${run.id}/diagnosis`)).body.data;
    expect(diagnosis.status).toBe('OK');
    expect(blocks).toContain(JSON.stringify(slackEscape(diagnosis.summary)).slice(1, -1));
    expect(blocks).toContain(JSON.stringify(`• ${slackEscape(diagnosis.recommendedActions[0])}`).slice(1, -1));
    expect(blocks).toContain(`<${link}|Open the run>`);
    expect(message?.body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Discovery run of lab <east> & co finished COMPLETED_WITH_ERRORS' } });
    answers.push(JSON.stringify(alert));
  });

  it('retries a webhook that answers 500 with back-off, then records FAILED; the run is not affected', async () => {
    hook.answer = httpStatus(500);
    try {
      const run = await scan(api, 'down-webhook', ['no-such-host.invalid']);
      expect(run).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', finishedAt: expect.any(String), summary: { errors: 1 } });
      const alert = await alertOf(api, run.id, 'FAILED');
      expect(alert).toMatchObject({ attempts: 3, lastError: 'The webhook answered HTTP 500.', nextAttemptAt: null, deliveredAt: null });
      expect(messagesAbout(hook, run.id)).toHaveLength(3);
      expect((await api.get(`/api/v1/discovery/runs/${run.id}`)).body.data).toEqual(run);
      answers.push(JSON.stringify(alert));
    } finally {
      hook.answer = (_req, res) => res.end('ok');
    }
  });

  it('alerts for a run that the lease sweeper failed', async () => {
    const target = (await api.post('/api/v1/discovery/targets', { name: 'lost-worker', addresses: ['10.9.9.9'], methods: ['SWEEP'] })).body.data;
    const { runs } = service.running.container;
    const run = await runs.create(target.id, target.name, 'MANUAL');
    await runs.claim(run?.id as string, 'a-worker-that-died', 1);
    // The sweeper runs every 15 seconds.
    await alertOf(api, run?.id as string, 'DELIVERED');
    const [message] = messagesAbout(hook, run?.id as string);
    expect(message?.body.text).toContain('lost-worker');
    expect(message?.body.text).toContain('FAILED');
    expect(message?.body.text).toContain('WORKER_LOST: 1');
    expect(JSON.stringify(message?.body.blocks)).toContain(LEASE_EXPIRED);
  }, 60_000);

  it('never writes the webhook URL to its log or its answers', () => {
    expect(service.logLines.some((l) => l.includes('alert not delivered'))).toBe(true);
    for (const text of [...service.logLines, ...answers]) {
      expect(text).not.toContain(HOOK_PATH);
      expect(text).not.toContain('hook-secret');
    }
  });
});

describe('alerts to a Microsoft Teams workflow, with the diagnosis of a chat-completions model', () => {
  let hook: RecordingServer;
  let llm: RecordingServer;
  let service: TestService;
  let api: ApiClient;
  const DIAGNOSIS = {
    summary: 'A name in the target does not resolve.',
    likelyCauses: ['The host was retired.'],
    recommendedActions: ['Fix the name in the target.', 'Check the resolver of the worker.', 'Remove retired hosts.', 'A fourth action.'],
    confidence: 'MEDIUM',
  };

  beforeAll(async () => {
    hook = await webhookReceiver();
    llm = await chatCompletionsServer(completion(JSON.stringify(DIAGNOSIS)));
    service = await startTestService({
      adminPassword: ADMIN_PASSWORD, aiEnabled: true, aiProvider: 'chat-completions', aiBaseUrl: `${llm.url}/v1`, aiModel: 'qwen2.5:7b',
      alertWebhookUrl: `${hook.url}${HOOK_PATH}`, alertWebhookFormat: 'teams', publicUrl: PUBLIC_URL,
    });
    api = (await createPrincipals(service.url)).discoveryAdminSession;
  });
  afterAll(async () => {
    await service.stop();
    await hook.close();
    await llm.close();
  });

  const card = (message: ReceivedRequest | undefined) => {
    expect(message?.body).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive' }] });
    const content = message?.body.attachments[0].content;
    expect(content).toMatchObject({ type: 'AdaptiveCard', version: expect.any(String) });
    return content;
  };

  it('posts an Adaptive Card with the target, the status, the error count by code, the link, the summary and the first actions', async () => {
    const run = await scan(api, 'teams-lab', ['no-such-host.invalid']);
    await alertOf(api, run.id, 'DELIVERED');
    const content = card(messagesAbout(hook, run.id)[0]);
    const facts = Object.fromEntries(content.body.find((b: { type: string }) => b.type === 'FactSet').facts.map((f: { title: string; value: string }) => [f.title, f.value]));
    expect(facts).toEqual({ Target: 'teams-lab', Status: 'COMPLETED_WITH_ERRORS', 'Errors by code': 'DNS_FAILURE: 1' });
    const texts = content.body.filter((b: { type: string }) => b.type === 'TextBlock').map((b: { text: string }) => b.text);
    expect(texts).toEqual(expect.arrayContaining([DIAGNOSIS.summary, '- Fix the name in the target.', '- Remove retired hosts.']));
    expect(texts).not.toContain('- A fourth action.');
    expect(content.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open the run', url: `${PUBLIC_URL}/api/v1/discovery/runs/${run.id}` }]);
    // The follow-up job asked the model before it alerted.
    expect(JSON.stringify(llm.received.at(-1)?.body)).toContain(run.id);
  });

  it('still alerts, without a diagnosis, when the model fails', async () => {
    llm.answer = httpStatus(503);
    const run = await scan(api, 'teams-no-model', ['no-such-host.invalid']);
    await alertOf(api, run.id, 'DELIVERED');
    expect((await api.get(`/api/v1/runs/${run.id}/diagnosis`)).body.data).toMatchObject({ status: 'ERROR', reason: 'The chat-completions endpoint answered HTTP 503.' });
    const content = card(messagesAbout(hook, run.id)[0]);
    const texts = JSON.stringify(content.body);
    expect(texts).toContain('teams-no-model');
    expect(texts).not.toContain('Diagnosis');
  });
});

describe('alerts to a webhook where nothing listens, with the diagnosis off', () => {
  let service: TestService;
  let api: ApiClient;
  let hookUrl: string;
  let failedRunId: string;

  beforeAll(async () => {
    hookUrl = `http://127.0.0.1:${await closedPort()}${HOOK_PATH}`;
    service = await startTestService({ adminPassword: ADMIN_PASSWORD, alertWebhookUrl: hookUrl, alertMaxAttempts: 2, alertRetryDelayMs: 50 });
    api = (await createPrincipals(service.url)).discoveryAdminSession;
  });
  afterAll(() => service.stop());

  it('records a failed delivery after its retries; the run finished normally', async () => {
    const run = await scan(api, 'nobody-listens', ['no-such-host.invalid']);
    failedRunId = run.id;
    expect(run).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', failureReason: null, summary: { errors: 1 } });
    const alert = await alertOf(api, run.id, 'FAILED');
    expect(alert).toMatchObject({ format: 'slack', attempts: 2, lastError: 'The webhook could not be reached (ECONNREFUSED).' });
    expect((await api.get(`/api/v1/runs/${run.id}/diagnosis`)).body.data.status).toBe('DISABLED');
    const everything = [...service.logLines, JSON.stringify(alert)].join('\n');
    expect(everything).not.toContain(hookUrl);
    expect(everything).not.toContain('hook-secret');
  });

  it('raises no alert for a run that finished without errors', async () => {
    const run = await scan(api, 'clean', ['127.0.0.2']);
    expect(run.status).toBe('COMPLETED');
    expect((await api.get(`/api/v1/runs/${run.id}/alert`)).body.data).toEqual({ runId: run.id, status: 'NONE' });
    const followUps = await service.running.container.db('agenda_jobs').where({ name: 'run-follow-up' }).pluck('data');
    expect(followUps.map((d: { runId: string }) => d.runId)).toEqual([failedRunId]);
    expect((await api.get('/api/v1/runs/3f1c2a9e-0000-4000-8000-000000000000/alert')).status).toBe(404);
  });
});
