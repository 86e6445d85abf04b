// The inventory core as the other features see it: the one writer of assets, relationships and
// sub-records (import, discovery, flows and aging write through it), the provenance of what an
// asset shows, and the lookups of identities and names. The ranks of discovery's methods in the
// facts' precedence are the connectors' declarations, handed to the core here so that its model
// and writer never import a feature.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AuditLog } from '../auth/audit-log.js';
import { CONNECTOR_FACT_RANKS } from '../discovery/connectors/registry.js';
import { FactPrecedence } from './asset-facts.js';
import type { IdentityLookup } from './asset-identity.js';
import type { AssetNameIndex } from './asset-name.js';
import { AssetNameStore } from './asset-name-store.js';
import { FactStore } from './fact-store.js';
import { IdentityStore } from './identity-store.js';
import { InventoryWriter } from './inventory-writer.js';
import { LoadGraphRepository } from './load-graph-repository.js';
import { ProvenanceService } from './provenance-service.js';
import { ScopeMemberStore } from './scope-member-store.js';
import { SubRecordLoader } from './sub-record-loader.js';
import { SubRecordStore } from './sub-record-store.js';
import { UnwrittenAssetSweep } from './unwritten-asset-sweep.js';

export const inventoryFeature = defineFeature({
  name: 'inventory',
  build({ db, graph, config, audit }: Platform & { audit: AuditLog }) {
    const identityStore = new IdentityStore(db);
    const nameStore = new AssetNameStore(db);
    const subRecords = new SubRecordStore(db);
    const facts = new FactStore(db);
    const precedence = new FactPrecedence(CONNECTOR_FACT_RANKS);
    const identities: IdentityLookup = identityStore;
    const assetNames: AssetNameIndex = nameStore;
    return {
      inventory: new InventoryWriter(
        db, identityStore, facts, precedence, nameStore, new LoadGraphRepository(graph),
        new SubRecordLoader(subRecords, identityStore, config.fdbMaxMacsPerAccessPort), subRecords, new ScopeMemberStore(db), audit,
      ),
      identities,
      assetNames,
      /** Rows of assets an import never wrote to the graph (its crash between the two stores). */
      unwrittenAssets: new UnwrittenAssetSweep(identityStore, graph),
      provenance: new ProvenanceService(facts, precedence),
      factPrecedence: precedence,
    };
  },
});
