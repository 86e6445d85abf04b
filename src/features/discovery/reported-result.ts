// What a remote scanner reports of an address, checked record by record before it is kept: the
// service does not see what produced it, and the loader trusts the shape of what it loads. Each
// observation, estate and address-facts record must have the shape the loader reads (the fields
// the inventory writer needs, of their types); one that does not is left out, with an error
// record for its address (SCANNER_RECORD_INVALID) naming what was wrong, and the rest of the
// address's result is kept. A bad record costs only itself. (The result's own fields are checked
// by api.yaml: ScannerAddressResult.)
import { z } from 'zod';
import { INVENTORY_METHODS } from './connectors/registry.js';
import type { AddressResult } from './observation-bundle.js';
import { OBSERVED_SCOPES } from './host-observation.js';
import type { RunError } from './run-record.js';

const text = z.string();
const optionalText = text.nullish();
const optionalNumber = z.number().nullish();
const texts = z.array(text);
const facts = {
  hostname: optionalText,
  fqdn: optionalText,
  vendor: optionalText,
  model: optionalText,
  serialNumber: optionalText,
  macAddresses: texts,
  ipAddresses: texts,
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
};
const ports = z.array(z.object({ protocol: text, port: z.number().int() }));
const software = z.object({ packageName: text, version: optionalText, publisher: optionalText, installDate: optionalText, packageManager: optionalText });
const service = z.object({ serviceName: text, displayName: optionalText, state: optionalText, startMode: optionalText, listenPorts: ports.optional(), sourceConnector: optionalText, product: optionalText, version: optionalText });
const processRow = z.object({ pid: z.number().int(), ppid: optionalNumber, processName: text, commandLine: optionalText, username: optionalText, state: optionalText, memoryKb: optionalNumber, cpuPercent: optionalNumber, sourceConnector: optionalText, application: text.optional() });
const networkInterface = z.object({ name: text, ifIndex: optionalNumber, macAddress: optionalText, ipAddresses: texts.optional(), speedMbps: optionalNumber, operStatus: optionalText, mtu: optionalNumber, description: optionalText });
const neighbor = z.object({ localPort: text, protocol: z.enum(['LLDP', 'CDP']).optional(), remotePort: text, remoteChassisId: text.optional(), remoteSystemName: text.optional() });

const RECORDS = {
  observations: z.object({
    address: text,
    method: text,
    assetType: text,
    ...facts,
    software: z.array(software),
    processes: z.array(processRow),
    services: z.array(service),
    interfaces: z.array(networkInterface),
    neighbors: z.array(neighbor),
    fdb: z.array(z.object({ port: text, macAddress: text, vlan: z.number().int().optional() })),
    connections: z.array(z.object({ localAddress: text, localPort: z.number().int(), remoteAddress: text, remotePort: z.number().int(), processName: text.optional() })),
    applications: z.array(z.object({ id: text, name: text, vendor: text.optional(), version: text.optional(), listenPorts: z.array(z.number().int()) })),
    complete: z.array(z.enum(OBSERVED_SCOPES)),
  }),
  estates: z.object({
    method: text,
    scope: text,
    root: text,
    rootIsHost: z.boolean().optional(),
    assets: z.array(z.object({ key: text, assetType: text, displayName: text, ...facts })),
    relationships: z.array(z.object({ type: text, source: text, target: text })),
    relationshipTypes: texts,
    processes: z.array(processRow.extend({ asset: text })).optional(),
    services: z.array(service.extend({ asset: text })).optional(),
    complete: z.boolean(),
    parts: z.array(z.object({ name: text, keys: texts, complete: z.boolean() })).optional(),
  }),
  addressFacts: z.object({
    method: text,
    addresses: z.array(z.object({
      address: text,
      ipAddresses: texts.optional(),
      macAddresses: texts.optional(),
      hostname: text.optional(),
      fqdn: text.optional(),
      assetType: text.optional(),
      attributes: z.record(z.string(), z.union([z.string(), z.number()])),
      evidence: z.record(z.string(), z.unknown()).optional(),
      services: z.object({ rows: z.array(service), complete: z.boolean() }).optional(),
    })),
  }),
} as const;

/** The result with each record of a shape the loader cannot take left out, and an error record for each. */
export function checkedResult(result: AddressResult): AddressResult {
  const errors: RunError[] = [];
  const kept = { ...result };
  for (const kind of Object.keys(RECORDS) as (keyof typeof RECORDS)[]) {
    const records = (result[kind] ?? []) as unknown[];
    const good = records.filter((record) => {
      const checked = RECORDS[kind].safeParse(record);
      if (checked.success) return true;
      const issue = checked.error.issues[0];
      const named = (record as { method?: unknown } | null)?.method;
      const method = (INVENTORY_METHODS as unknown[]).includes(named) ? (named as string) : 'RUN';
      errors.push({
        address: result.address, method, stage: 'report', code: 'SCANNER_RECORD_INVALID',
        message: `The scanner's ${kind === 'observations' ? 'observation' : kind === 'estates' ? 'estate' : 'address facts'} of ${method} at this address was left out: ${issue?.path.join('.') || 'the record'}: ${issue?.message ?? 'invalid'}.`.slice(0, 1000),
      });
      return false;
    });
    if (good.length !== records.length) Object.assign(kept, { [kind]: good });
  }
  return errors.length ? { ...kept, errors: [...result.errors, ...errors] } : result;
}
