// The shapes the UI reads from the API: the schemas of api.yaml, as generated into
// src/platform/http/api-types.ts (`npm run api-types`), so that the UI cannot drift from the contract.
import type { components, operations } from '../../src/platform/http/api-types';

type Schemas = components['schemas'];

export type ParentRef = Schemas['ParentReference'];
export type Asset = Schemas['Asset'];
export type ConnectedTo = NonNullable<Asset['connectedTo']>[number];
export type Relationship = Schemas['Relationship'];
export type SchemaEntry = Schemas['SchemaEntry'];
export type Run = Schemas['Run'];
export type RunHost = operations['listRunHosts']['responses'][200]['content']['application/json']['data'][number];
export type RunChunk = Schemas['RunChunk'];
export type RunAlert = Schemas['RunAlert'];
export type Target = Schemas['Target'];
export type DiscoveryMethod = Schemas['DiscoveryMethodDescription'];
export type Credential = Schemas['Credential'];
export type CredentialKind = Schemas['CredentialKindDescription'];
export type InsightFeed = Schemas['InsightFeed'];
export type InsightRow = Schemas['InsightRow'];
export type InsightResult = operations['getInsightFeed']['responses'][200]['content']['application/json'];
export type SavedView = Schemas['SavedView'];
export type SavedViewInput = Schemas['SavedViewInput'];
export type FieldValues = operations['listAssetValues']['responses'][200]['content']['application/json'];
export type SearchGroup = Schemas['SearchGroup'];
export type AuditEvent = Schemas['AuditEvent'];
export type FlowSeries = operations['getFlowExporterSeries']['responses'][200]['content']['application/json'];
export type FlowTalker = Schemas['FlowTalker'];
export type FlowConversation = Schemas['FlowConversation'];
export type FlowExporter = Schemas['FlowExporter'];
export type CredentialUse = operations['listCredentialTargets']['responses'][200]['content']['application/json']['data'][number];
export type CredentialTestOutcome = operations['testCredential']['responses'][200]['content']['application/json']['data'];
export type FactProvenance = operations['getAssetProvenance']['responses'][200]['content']['application/json']['data']['fields'][number];
export type AssetHistoryEntry = Schemas['AssetHistoryEntry'];
export type Topology = Schemas['Topology'];
export type TopologyChanges = Schemas['TopologyChanges'];
export type Scanner = Schemas['Scanner'];
export type CreatedScanner = Schemas['CreatedScanner'];
