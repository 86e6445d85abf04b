// The saved-views feature: users' named filters, columns and sort of the asset and relationship
// lists, each list's filters taken from its operation in api.yaml.
import { defineFeature } from '../../platform/feature.js';
import { queryParameterNames } from '../../platform/http/openapi.js';
import type { Platform } from '../../platform/platform.js';
import { savedViewRouter } from './saved-view-router.js';
import { SavedViewService } from './saved-view-service.js';
import { SavedViewStore } from './saved-view-store.js';

export const viewsFeature = defineFeature({
  name: 'views',
  build: ({ db, apiDocument }: Pick<Platform, 'db' | 'apiDocument'>) => ({
    views: new SavedViewService(new SavedViewStore(db), {
      ASSETS: queryParameterNames(apiDocument, 'listAssets'),
      RELATIONSHIPS: queryParameterNames(apiDocument, 'listRelationships'),
    }),
  }),
  routes: ({ views }) => [savedViewRouter(views)],
});
