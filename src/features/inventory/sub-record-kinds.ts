// The sub-record kinds, in the paging order of synthesized types (docs/interface.md, decision 5).
// A new kind: its file beside these, a line here, a migration for its table, and api.yaml.
import { discoveredServiceKind } from './discovered-service-kind.js';
import { networkInterfaceKind } from './network-interface-kind.js';
import { runningProcessKind } from './running-process-kind.js';
import { softwarePackageKind } from './software-package-kind.js';

export const SUB_RECORD_KINDS = [softwarePackageKind, runningProcessKind, discoveredServiceKind, networkInterfaceKind] as const;

export type SubRecordKindOf = (typeof SUB_RECORD_KINDS)[number];
/** The synthesized asset types. */
export type SynthesizedType = SubRecordKindOf['assetType'];
/** The exports of the sub-record tables. */
export type SubRecordDataset = SubRecordKindOf['dataset'];

export function kindOfType(type: SynthesizedType): SubRecordKindOf {
  return SUB_RECORD_KINDS.find((k) => k.assetType === type) as SubRecordKindOf;
}
