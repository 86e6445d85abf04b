// Running processes, as the latest read of each asset showed them: an asset's rows are replaced
// whole at each read (a pid names a process only for its lifetime).
import { field, ON_HOST } from './asset-type-definition.js';
import { subRecordKind } from './sub-record-kind.js';
import type { ProcessRow } from './sub-record-rows.js';

export const COMMAND_LINE_MAX = 4096;

export const runningProcessKind = subRecordKind({
  assetType: 'RUNNING_PROCESS',
  type: { category: 'PROCESS', label: 'Running Process', parent: ON_HOST, fields: [field('pid', 'integer', 'Process id'), field('command_line', 'string?', 'Command line')] },
  dataset: 'processes',
  table: 'running_processes',
  key: null,
  name: 'process_name',
  columns: [
    { name: 'pid', api: 'pid', type: 'integer', attribute: true, schemaKey: true },
    { name: 'ppid', api: 'ppid', type: 'integer', attribute: true, schemaKey: true },
    { name: 'process_name', api: 'processName', type: 'text' },
    { name: 'command_line', api: 'commandLine', type: 'text', attribute: true, schemaKey: true, searched: true },
    { name: 'username', api: 'username', type: 'text', attribute: true, schemaKey: true },
    { name: 'state', api: 'state', type: 'text', attribute: true, schemaKey: true },
    { name: 'memory_kb', api: 'memoryKb', type: 'number', attribute: true, schemaKey: true },
    { name: 'cpu_percent', api: 'cpuPercent', type: 'number', attribute: true, schemaKey: true },
    { name: 'source_connector', api: 'sourceConnector', type: 'text', attribute: true },
    { name: 'software_asset_id', api: 'softwareAssetId', type: 'uuid', attribute: true },
  ],
  firstSeen: 'observed_at',
  lastSeen: 'observed_at',
  changesTracked: false,
  export: {
    columns: ['pid', 'ppid', 'processName', 'commandLine', 'username', 'state', 'memoryKb', 'cpuPercent', 'sourceConnector', 'softwareAssetId'],
    order: ['pid'],
    equals: ['username'],
  },
  toRow: (r: ProcessRow, { observedAt }) => ({
    asset_id: r.assetId, pid: r.pid, ppid: r.ppid ?? null, process_name: r.processName, command_line: r.commandLine?.slice(0, COMMAND_LINE_MAX) ?? null,
    username: r.username ?? null, state: r.state ?? null, memory_kb: r.memoryKb ?? null, cpu_percent: r.cpuPercent ?? null,
    source_connector: r.sourceConnector ?? null, software_asset_id: r.softwareAssetId ?? null, observed_at: observedAt,
  }),
});
