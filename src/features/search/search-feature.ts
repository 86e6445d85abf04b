// The search feature: one search across assets and the sub-record rows, for the header's search box.
import { defineFeature } from '../../platform/feature.js';
import type { Platform } from '../../platform/platform.js';
import type { AssetReads } from '../assets/asset-summary.js';
import type { IdentityLookup } from '../inventory/asset-identity.js';
import { searchRouter } from './search-router.js';
import { SearchService } from './search-service.js';

export const searchFeature = defineFeature({
  name: 'search',
  build: ({ graph, db, identities, assetReads }: Pick<Platform, 'graph' | 'db'> & { identities: IdentityLookup; assetReads: AssetReads }) => ({
    search: new SearchService(graph, db, identities, assetReads),
  }),
  routes: ({ search }) => [searchRouter(search)],
});
