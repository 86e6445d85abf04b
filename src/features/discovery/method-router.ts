// The discovery methods over HTTP (DISCOVERY_ADMIN, ADMINISTRATOR per api.yaml: those who edit
// targets, whose forms are built from it).
import { Router } from 'express';
import { METHOD_CATALOGUE } from './method-catalogue.js';

export function methodRouter(): Router {
  const router = Router();
  router.get('/api/v1/discovery/methods', (_req, res) => {
    res.json({ data: METHOD_CATALOGUE });
  });
  return router;
}
