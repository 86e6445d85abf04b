// Discovery targets: validated as a whole (every bad address, the scope limit, unknown
// credentials, the schedule), named uniquely, audited.
import { BadRequestError, ConflictError, NotFoundError, type FieldError } from '../../platform/errors.js';
import { isUniqueViolation } from '../../platform/postgres/postgres-client.js';
import type { Actor, AuditLog } from '../auth/audit-log.js';
import { parseAddress } from './target-addresses.js';
import { scheduleProblem } from './target-schedule.js';
import { DEFAULT_METHODS, INVENTORY_CONNECTORS, inventoryConnector } from './connectors/registry.js';
import type { DiscoveryMethod, TargetStore, TargetValues } from './target-store.js';
import { portOf, type TargetRecord } from './target-record.js';

export interface TargetInput {
  name: string;
  addresses: string[];
  methods?: DiscoveryMethod[];
  /** Shorthands of ports.SSH and ports.SNMP. */
  sshPort?: number;
  snmpPort?: number;
  ports?: Partial<Record<string, number>>;
  settings?: Partial<Record<string, Record<string, unknown>>>;
  credentialIds?: string[];
  scannerGroup?: string | null;
  schedule?: string | null;
  enabled?: boolean;
}

export type TargetView = Omit<TargetRecord, 'createdAt' | 'updatedAt'> & { sshPort: number; snmpPort: number; createdAt: string; updatedAt: string };

/** The view names every inventory method's port, its own or the default. */
export function toTargetView(record: TargetRecord): TargetView {
  const ports = Object.fromEntries(INVENTORY_CONNECTORS.flatMap((c) => (c.defaultPort === undefined ? [] : [[c.method, portOf(record, c.method)]])));
  return {
    ...record, sshPort: portOf(record, 'SSH'), snmpPort: portOf(record, 'SNMP'), ports, createdAt: record.createdAt.toISOString(), updatedAt: record.updatedAt.toISOString(),
  };
}

/** The ports an input sets, keyed by method: `ports` with the sshPort and snmpPort shorthands. */
function portsOf(input: Partial<TargetInput>, errors: FieldError[]): Partial<Record<string, number>> {
  const ports = { ...input.ports };
  for (const [field, method] of [['sshPort', 'SSH'], ['snmpPort', 'SNMP']] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (ports[method] !== undefined && ports[method] !== value) errors.push({ path: `body.${field}`, message: `differs from ports.${method}` });
    ports[method] = value;
  }
  return ports;
}

export class TargetService {
  constructor(
    private readonly store: TargetStore,
    private readonly audit: AuditLog,
    private readonly limits: { maxAddresses: number; minScheduleIntervalSeconds: number },
  ) {}

  async list(page: number, size: number, enabled?: boolean): Promise<{ rows: TargetView[]; total: number }> {
    const { rows, total } = await this.store.list(page, size, enabled);
    return { rows: rows.map(toTargetView), total };
  }

  async get(id: string): Promise<TargetView> {
    return toTargetView(await this.require(id));
  }

  async create(actor: Actor, input: TargetInput): Promise<TargetView> {
    const errors: FieldError[] = [];
    const values = await this.validate(errors, {
      name: input.name,
      addresses: input.addresses,
      methods: input.methods ?? [...DEFAULT_METHODS],
      ports: portsOf(input, errors),
      settings: input.settings ?? {},
      credentialIds: input.credentialIds ?? [],
      scannerGroup: input.scannerGroup ?? null,
      schedule: input.schedule ?? null,
      enabled: input.enabled ?? true,
    });
    const record = await this.unique(values.name, () =>
      this.audit.write(actor, (trx) => this.store.insert(values, trx), (created) => ({
        action: 'target.create', targetKind: 'DISCOVERY_TARGET', targetId: created.id, details: { name: created.name, addresses: created.addresses, methods: created.methods },
      })));
    return toTargetView(record);
  }

  /** Fields left out keep their value. */
  async update(actor: Actor, id: string, input: Partial<TargetInput>): Promise<TargetView> {
    const current = await this.require(id);
    const errors: FieldError[] = [];
    const values = await this.validate(errors, {
      name: input.name ?? current.name,
      addresses: input.addresses ?? current.addresses,
      methods: input.methods ?? current.methods,
      ports: { ...current.ports, ...portsOf(input, errors) },
      settings: { ...current.settings, ...input.settings },
      credentialIds: input.credentialIds ?? current.credentialIds,
      scannerGroup: input.scannerGroup !== undefined ? input.scannerGroup : current.scannerGroup,
      schedule: input.schedule !== undefined ? input.schedule : current.schedule,
      enabled: input.enabled ?? current.enabled,
    });
    const changed = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
    const record = await this.unique(values.name, () =>
      this.audit.write(actor, (trx) => this.store.update(id, values, trx), (updated) => updated && { action: 'target.update', targetKind: 'DISCOVERY_TARGET', targetId: id, details: { name: updated.name, changed } }));
    if (!record) throw new NotFoundError(`No discovery target with id ${id}.`);
    return toTargetView(record);
  }

  async delete(actor: Actor, id: string): Promise<void> {
    const current = await this.require(id);
    await this.audit.write(actor, (trx) => this.store.delete(id, trx), () => ({ action: 'target.delete', targetKind: 'DISCOVERY_TARGET', targetId: id, details: { name: current.name } }));
  }

  private async validate(errors: FieldError[], values: Omit<TargetValues, 'addressCount'>): Promise<TargetValues> {
    let addressCount = 0;
    // Kept as parsed: canonical IPv6, host names in lower case.
    const addresses = values.addresses.map((text, i) => {
      const parsed = parseAddress(text);
      if (typeof parsed === 'string') {
        errors.push({ path: `body.addresses.${i}`, message: parsed });
        return text;
      }
      addressCount += parsed.count;
      return parsed.text;
    });
    const { maxAddresses, minScheduleIntervalSeconds } = this.limits;
    if (addressCount > maxAddresses) {
      errors.push({ path: 'body.addresses', message: `covers ${addressCount} addresses; the limit is ${maxAddresses} (service.discovery.max-addresses-per-target)` });
    }
    const known = await this.store.existingCredentials(values.credentialIds);
    values.credentialIds.forEach((id, i) => {
      if (!known.has(id)) errors.push({ path: `body.credentialIds.${i}`, message: `no credential with id ${id}` });
    });
    for (const [method, settings] of Object.entries(values.settings)) {
      const schema = inventoryConnector(method)?.settings;
      if (!schema) {
        errors.push({ path: `body.settings.${method}`, message: `${method} has no settings` });
        continue;
      }
      const parsed = schema.safeParse(settings);
      if (parsed.success) values.settings[method] = parsed.data;
      else for (const issue of parsed.error.issues) errors.push({ path: ['body', 'settings', method, ...issue.path.map(String)].join('.'), message: issue.message });
    }
    const scheduleRefused = values.schedule === null ? undefined : scheduleProblem(values.schedule, minScheduleIntervalSeconds);
    if (scheduleRefused) errors.push({ path: 'body.schedule', message: scheduleRefused });
    if (errors.length) throw new BadRequestError('The target is not valid.', errors);
    return { ...values, addresses, methods: [...new Set(values.methods)], addressCount };
  }

  private async require(id: string): Promise<TargetRecord> {
    const record = await this.store.find(id);
    if (!record) throw new NotFoundError(`No discovery target with id ${id}.`);
    return record;
  }

  private async unique<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`A discovery target named "${name}" already exists.`);
      throw error;
    }
  }
}
