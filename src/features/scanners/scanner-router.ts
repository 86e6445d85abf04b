// Scanners as administrators manage them (ADMINISTRATOR, per api.yaml).
import { Router } from 'express';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import { actorOf } from '../auth/authentication-middleware.js';
import type { ScannerService } from './scanner-service.js';

export function scannerRouter(scanners: ScannerService): Router {
  const router = Router();

  router.get('/api/v1/scanners', async (req, res) => {
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const { rows, total } = await scanners.list(page.page, page.size);
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.post('/api/v1/scanners', async (req, res) => {
    res.status(201).json({ data: await scanners.create(actorOf(req), { name: req.body.name, group: req.body.group }) });
  });

  router.delete('/api/v1/scanners/:scannerId', async (req, res) => {
    res.json({ data: await scanners.revoke(actorOf(req), req.params.scannerId) });
  });

  return router;
}
