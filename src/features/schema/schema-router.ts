import { Router } from 'express';
import type { SchemaService } from './schema-service.js';

export function schemaRouter(schema: SchemaService): Router {
  const router = Router();
  router.get('/api/v1/schema/asset-types', async (req, res) => {
    res.json({ data: await schema.list(req.query.category as string | undefined) });
  });
  router.get('/api/v1/schema/asset-types/:type', async (req, res) => {
    res.json({ data: await schema.get(req.params.type as string) });
  });
  return router;
}
