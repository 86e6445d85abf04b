// The rows of the sub-record tables as the rest of the service writes and reads them, apart from
// the store that holds them.

export interface PackageRow {
  assetId: string;
  packageName: string;
  version?: string | null;
  publisher?: string | null;
  installDate?: string | null;
  packageManager?: string | null;
}

export interface ServiceRow {
  assetId: string;
  serviceName: string;
  displayName?: string | null;
  state?: string | null;
  startMode?: string | null;
  listenPorts?: { protocol: string; port: number }[];
  sourceConnector?: string | null;
  product?: string | null;
  version?: string | null;
}

export interface ProcessRow {
  assetId: string;
  pid: number;
  ppid?: number | null;
  processName: string;
  commandLine?: string | null;
  username?: string | null;
  state?: string | null;
  memoryKb?: number | null;
  cpuPercent?: number | null;
  sourceConnector?: string | null;
  softwareAssetId?: string | null;
}

export interface InterfaceRow {
  assetId: string;
  name: string;
  ifIndex?: number | null;
  macAddress?: string | null;
  ipAddresses?: string[];
  speedMbps?: number | null;
  operStatus?: string | null;
  mtu?: number | null;
  description?: string | null;
}

export interface ConnectionRow {
  sourceInterfaceId: string;
  sourceAssetId: string;
  targetInterfaceId: string;
  targetAssetId: string;
  discoveredVia: 'LLDP' | 'CDP' | 'FDB';
  confidence: number;
}
