// The schema feature: the asset types of the taxonomy with the custom attribute keys in use.
import { defineFeature } from '../../platform/feature.js';
import type { AssetReads } from '../assets/asset-summary.js';
import { schemaRouter } from './schema-router.js';
import { SchemaService } from './schema-service.js';

export const schemaFeature = defineFeature({
  name: 'schema',
  build: ({ assetReads }: { assetReads: AssetReads }) => ({ schema: new SchemaService(assetReads) }),
  routes: ({ schema }) => [schemaRouter(schema)],
});
