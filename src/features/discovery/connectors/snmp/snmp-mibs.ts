// What the SNMP connector reads, by numeric OID: no MIB files are loaded (none are installable
// here, and a device's answer must not depend on them). The mapping reads the same constants.
import type { ObservedScope } from '../../host-observation.js';

// sysUpTime is left out on purpose: it changes on every scan, and a rescan must change nothing.
export const SYSTEM = {
  sysDescr: '1.3.6.1.2.1.1.1.0',
  sysObjectId: '1.3.6.1.2.1.1.2.0',
  sysContact: '1.3.6.1.2.1.1.4.0',
  sysName: '1.3.6.1.2.1.1.5.0',
  sysLocation: '1.3.6.1.2.1.1.6.0',
  sysServices: '1.3.6.1.2.1.1.7.0',
  ipForwarding: '1.3.6.1.2.1.4.1.0',
  dot1dBaseNumPorts: '1.3.6.1.2.1.17.1.2.0',
} as const;

const IF_ENTRY = '1.3.6.1.2.1.2.2.1';
const IFX_ENTRY = '1.3.6.1.2.1.31.1.1.1';
const ENT_PHYSICAL_ENTRY = '1.3.6.1.2.1.47.1.1.1.1';
const LLDP_LOC_PORT_ENTRY = '1.0.8802.1.1.2.1.3.7.1';
const LLDP_REM_ENTRY = '1.0.8802.1.1.2.1.4.1.1';

export const COLUMNS = {
  ifDescr: `${IF_ENTRY}.2`,
  ifType: `${IF_ENTRY}.3`,
  ifMtu: `${IF_ENTRY}.4`,
  ifSpeed: `${IF_ENTRY}.5`,
  ifPhysAddress: `${IF_ENTRY}.6`,
  ifOperStatus: `${IF_ENTRY}.8`,
  ifName: `${IFX_ENTRY}.1`,
  ifHighSpeed: `${IFX_ENTRY}.15`,
  ifAlias: `${IFX_ENTRY}.18`,
  /** Indexed by the IPv4 address. */
  ipAdEntIfIndex: '1.3.6.1.2.1.4.20.1.2',
  /** Indexed by InetAddressType.length.octets. */
  ipAddressIfIndex: '1.3.6.1.2.1.4.34.1.3',
  ipAddressType: '1.3.6.1.2.1.4.34.1.4',
  entPhysicalClass: `${ENT_PHYSICAL_ENTRY}.5`,
  entPhysicalSoftwareRev: `${ENT_PHYSICAL_ENTRY}.10`,
  entPhysicalSerialNum: `${ENT_PHYSICAL_ENTRY}.11`,
  entPhysicalMfgName: `${ENT_PHYSICAL_ENTRY}.12`,
  entPhysicalModelName: `${ENT_PHYSICAL_ENTRY}.13`,
  lldpLocPortIdSubtype: `${LLDP_LOC_PORT_ENTRY}.2`,
  lldpLocPortId: `${LLDP_LOC_PORT_ENTRY}.3`,
  lldpLocPortDesc: `${LLDP_LOC_PORT_ENTRY}.4`,
  /** lldpRemTable is indexed by timeMark.localPortNum.remIndex. */
  lldpRemChassisIdSubtype: `${LLDP_REM_ENTRY}.4`,
  lldpRemChassisId: `${LLDP_REM_ENTRY}.5`,
  lldpRemPortIdSubtype: `${LLDP_REM_ENTRY}.6`,
  lldpRemPortId: `${LLDP_REM_ENTRY}.7`,
  lldpRemPortDesc: `${LLDP_REM_ENTRY}.8`,
  lldpRemSysName: `${LLDP_REM_ENTRY}.9`,
  dot1dBasePortIfIndex: '1.3.6.1.2.1.17.1.4.1.2',
  /** dot1dTpFdbTable is indexed by the MAC (six octets). */
  dot1dTpFdbPort: '1.3.6.1.2.1.17.4.3.1.2',
  dot1dTpFdbStatus: '1.3.6.1.2.1.17.4.3.1.3',
  /** dot1qTpFdbTable is indexed by fdbId.MAC. */
  dot1qTpFdbPort: '1.3.6.1.2.1.17.7.1.2.2.1.2',
  dot1qTpFdbStatus: '1.3.6.1.2.1.17.7.1.2.2.1.3',
  prtGeneralPrinterName: '1.3.6.1.2.1.43.5.1.1.16',
  hrDeviceType: '1.3.6.1.2.1.25.3.2.1.2',
} as const;

export type Column = keyof typeof COLUMNS;

/** A table walked column by column, and the scopes its rows go into: a table cut short or failed leaves them out of `complete`. */
export interface TableWalk {
  name: string;
  columns: Column[];
  scopes: ObservedScope[];
}

// IF-MIB also names the ports of forwarding entries: without it an entry is dropped, so the FDB
// is complete only when the interface tables are.
export const TABLES: TableWalk[] = [
  { name: 'ifTable', columns: ['ifDescr', 'ifType', 'ifMtu', 'ifSpeed', 'ifPhysAddress', 'ifOperStatus'], scopes: ['interfaces', 'fdb'] },
  { name: 'ifXTable', columns: ['ifName', 'ifHighSpeed', 'ifAlias'], scopes: ['interfaces', 'fdb'] },
  { name: 'ipAddrTable', columns: ['ipAdEntIfIndex'], scopes: ['interfaces'] },
  { name: 'ipAddressTable', columns: ['ipAddressIfIndex', 'ipAddressType'], scopes: ['interfaces'] },
  { name: 'entPhysicalTable', columns: ['entPhysicalClass', 'entPhysicalSoftwareRev', 'entPhysicalSerialNum', 'entPhysicalMfgName', 'entPhysicalModelName'], scopes: [] },
  { name: 'lldpLocPortTable', columns: ['lldpLocPortIdSubtype', 'lldpLocPortId', 'lldpLocPortDesc'], scopes: ['neighbors'] },
  {
    name: 'lldpRemTable',
    columns: ['lldpRemChassisIdSubtype', 'lldpRemChassisId', 'lldpRemPortIdSubtype', 'lldpRemPortId', 'lldpRemPortDesc', 'lldpRemSysName'],
    scopes: ['neighbors'],
  },
  { name: 'dot1dBasePortTable', columns: ['dot1dBasePortIfIndex'], scopes: ['fdb'] },
  { name: 'dot1dTpFdbTable', columns: ['dot1dTpFdbPort', 'dot1dTpFdbStatus'], scopes: ['fdb'] },
  { name: 'dot1qTpFdbTable', columns: ['dot1qTpFdbPort', 'dot1qTpFdbStatus'], scopes: ['fdb'] },
  { name: 'prtGeneralTable', columns: ['prtGeneralPrinterName'], scopes: [] },
  { name: 'hrDeviceTable', columns: ['hrDeviceType'], scopes: [] },
];

/** The scopes SNMP can observe in full: the others (software, processes, ...) it never claims. */
export const SNMP_SCOPES = [...new Set(TABLES.flatMap((t) => t.scopes))];
