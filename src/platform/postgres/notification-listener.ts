// A PostgreSQL LISTEN on its own connection, kept open: each NOTIFY on the channel calls
// `onNotify`; `onLost` runs whenever the connection is down (at start, on error, before each
// reconnection), so that what depends on hearing every notification can stop trusting itself.
import pg from 'pg';
import type { Logger } from '../logger.js';

const RETRY_MS = { first: 500, max: 30_000 };

export interface NotificationHandlers {
  onNotify(): void;
  /** Called on each (re)connection, once LISTEN is in place: from now on no notification is missed. */
  onListening(): void;
  onLost(): void;
}

export class NotificationListener {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private delay = RETRY_MS.first;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly handlers: NotificationHandlers,
    private readonly logger: Logger,
  ) {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  }

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    this.handlers.onLost();
    const client = new pg.Client({ connectionString: this.url, application_name: `listen:${this.channel}`, keepAlive: true });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.handlers.onNotify();
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      if (this.client !== client) return;
      this.delay = RETRY_MS.first;
      this.handlers.onListening();
    } catch (error) {
      this.lost(client, error);
    }
  }

  private lost(client: pg.Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.handlers.onLost();
    client.end().catch(() => undefined);
    if (this.stopped) return;
    this.logger.warn('PostgreSQL notifications interrupted; retrying', { channel: this.channel, retryInMs: this.delay, error: error instanceof Error ? error.message : undefined });
    this.retry = setTimeout(() => void this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, RETRY_MS.max);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.handlers.onLost();
    await client?.end().catch(() => undefined);
  }
}
