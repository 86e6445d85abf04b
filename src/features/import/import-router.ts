import { Router } from 'express';
import { actorOf } from '../auth/authentication-middleware.js';
import type { ImportService } from './import-service.js';

export function importRouter(importer: ImportService): Router {
  return Router().post('/api/v1/import', async (req, res) => {
    res.json({ data: await importer.import(actorOf(req), req.body) });
  });
}
