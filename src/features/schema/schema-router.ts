import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import type { SchemaService } from './schema-service.js';

export function schemaRouter(schema: SchemaService): Router {
  const router = Router();
  router.get('/api/v1/schema/asset-types', async (req, res) => {
    res.json({ data: await schema.list(queryOf(req, 'listAssetTypes').category) });
  });
  router.get('/api/v1/schema/asset-types/:type', async (req, res) => {
    res.json({ data: await schema.get(req.params.type) });
  });
  return router;
}
