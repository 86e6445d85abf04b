import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, SETTINGS } from '../../src/platform/config.js';

function settingsFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'config-')), 'service.yaml');
  writeFileSync(file, text);
  return file;
}

const SCANNER_TOKEN = `svcs_${'A'.repeat(38)}`;

describe('configuration', () => {
  it('has the documented defaults, under the spec names', () => {
    const config = loadConfig({ file: false });
    expect(config.port).toBe(8080);
    expect(config.aiEnabled).toBe(false);
    expect(config.retentionSubAssetDays).toBe(30);
    expect(config.retentionCron).toBe('0 15 2 * * *');
    expect(config.roles).toEqual(['api', 'worker', 'scheduler', 'collector']);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.neo4jUri).toBeUndefined();
    expect(SETTINGS.aiEnabled.key).toBe('service.ai.enabled');
    expect(SETTINGS.aiEnabled.env).toBe('SERVICE_AI_ENABLED');
    expect(SETTINGS.retentionSubAssetDays.env).toBe('SERVICE_RETENTION_SUB_ASSET_DAYS');
  });

  it('reads a settings file, and lets the environment override it', () => {
    const file = settingsFile('service:\n  ai:\n    enabled: true\n  retention:\n    sub-asset-days: 10\n  context-path: /inv/\n');
    const fromFile = loadConfig({ file });
    expect(fromFile.aiEnabled).toBe(true);
    expect(fromFile.retentionSubAssetDays).toBe(10);
    expect(fromFile.contextPath).toBe('/inv');
    const overridden = loadConfig({ file, env: { SERVICE_RETENTION_SUB_ASSET_DAYS: '7', PORT: '9090', SERVICE_ROLES: 'worker' } });
    expect(overridden.retentionSubAssetDays).toBe(7);
    expect(overridden.port).toBe(9090);
    expect(overridden.roles).toEqual(['worker']);
  });

  it('finds the settings file named by SERVICE_CONFIG_FILE', () => {
    const file = settingsFile('server:\n  port: 7001\n');
    expect(loadConfig({ env: { SERVICE_CONFIG_FILE: file } }).port).toBe(7001);
  });

  it.each([
    [{ PORT: 'eighty' }, /server\.port \(environment variable PORT\)/],
    [{ SERVICE_RETENTION_SUB_ASSET_DAYS: '0' }, /service\.retention\.sub-asset-days/],
    [{ SERVICE_RETENTION_CRON: 'every day' }, /service\.retention\.cron.*cron expression/],
    [{ SERVICE_ROLES: 'api,cook' }, /service\.roles/],
    [{ SERVICE_AI_ENABLED: 'yes' }, /service\.ai\.enabled/],
    [{ NEO4J_URI: 'http://localhost:7474' }, /neo4j\.uri \(environment variable NEO4J_URI\).*bolt:\/\//],
    [{ SERVICE_CONTEXT_PATH: 'inventory' }, /service\.context-path/],
    [{ SERVICE_AI_PROVIDER: 'chat-completions', SERVICE_AI_MODEL: 'llama3.1' }, /service\.ai\.base-url \(SERVICE_AI_BASE_URL\)/],
    [{ SERVICE_AI_PROVIDER: 'chat-completions', SERVICE_AI_BASE_URL: 'http://localhost:11434/v1' }, /service\.ai\.model \(SERVICE_AI_MODEL\)/],
    [{ SERVICE_ALERTS_WEBHOOK_FORMAT: 'discord' }, /service\.alerts\.webhook-format/],
    [{ SERVICE_PUBLIC_URL: 'https://inventory.example.com/inventory' }, /service\.public-url.*without a path/],
    [{ SERVICE_ROLES: 'scanner,worker', SERVICE_SCANNER_URL: 'https://inventory.example.com', SERVICE_SCANNER_TOKEN: SCANNER_TOKEN }, /scanner role runs alone.*SERVICE_ROLES/],
    [{ SERVICE_ROLES: 'scanner', SERVICE_SCANNER_TOKEN: SCANNER_TOKEN }, /service\.scanner\.url \(SERVICE_SCANNER_URL\)/],
    [{ SERVICE_ROLES: 'scanner', SERVICE_SCANNER_URL: 'https://inventory.example.com' }, /service\.scanner\.token \(SERVICE_SCANNER_TOKEN\)/],
    [{ SERVICE_SCANNER_URL: 'inventory.example.com' }, /service\.scanner\.url.*http\(s\)/],
    [{ SERVICE_SCANNER_TOKEN: 'svcm_notascannertoken' }, /service\.scanner\.token \(environment variable SERVICE_SCANNER_TOKEN\): must be a scanner token/],
  ])('refuses %j with a message naming the setting', (env, message) => {
    expect(() => loadConfig({ env, file: false })).toThrow(message);
  });

  it('takes a chat-completions provider with its base URL and model, and a public URL without its trailing slash', () => {
    const config = loadConfig({
      env: { SERVICE_AI_PROVIDER: 'chat-completions', SERVICE_AI_BASE_URL: 'http://localhost:11434/v1', SERVICE_AI_MODEL: 'llama3.1', SERVICE_PUBLIC_URL: 'https://inventory.example.com/' },
      file: false,
    });
    expect(config).toMatchObject({ aiProvider: 'chat-completions', aiBaseUrl: 'http://localhost:11434/v1', aiModel: 'llama3.1', publicUrl: 'https://inventory.example.com' });
  });

  it('takes the scanner role alone with the service\'s URL (without its trailing slash) and a scanner token', () => {
    const config = loadConfig({ env: { SERVICE_ROLES: 'scanner', SERVICE_SCANNER_URL: 'https://inventory.example.com/inventory/', SERVICE_SCANNER_TOKEN: SCANNER_TOKEN }, file: false });
    expect(config).toMatchObject({ roles: ['scanner'], scannerUrl: 'https://inventory.example.com/inventory', scannerToken: SCANNER_TOKEN, scannerWaitSeconds: 20, scannerRetryMaxMs: 30_000 });
  });

  it('never repeats the value of a secret setting in its error', () => {
    expect(() => loadConfig({ env: { DATABASE_URL: 'mysql://root:hunter2@db/x' }, file: false })).toThrow(/database\.url/);
    try {
      loadConfig({ env: { DATABASE_URL: 'mysql://root:hunter2@db/x' }, file: false });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
    const webhook = { SERVICE_ALERTS_WEBHOOK_URL: 'hooks.example.com/services/T0/B0/s3cret' };
    expect(() => loadConfig({ env: webhook, file: false })).toThrow(/service\.alerts\.webhook-url/);
    expect(() => loadConfig({ env: webhook, file: false })).not.toThrow(/s3cret/);
  });

  it('refuses an unknown key in the settings file, naming it', () => {
    const file = settingsFile('service:\n  ai:\n    enabeld: true\n');
    expect(() => loadConfig({ file })).toThrow(/Unknown setting "service\.ai\.enabeld"/);
  });
});
