// The operations of remote scanners (x-principal: SCANNER in api.yaml: a scanner token and
// nothing else): the long-polled claim of a chunk, its reports, and what its scan asks on the way.
import { Router } from 'express';
import type { ScannerChunkService } from './scanner-chunk-service.js';

export function scannerChunkRouter(chunks: ScannerChunkService): Router {
  const router = Router();

  router.post('/api/v1/scanner/chunks/claim', async (req, res) => {
    // A scanner that goes away stops its wait.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const chunk = await chunks.claim(req.principal!, req.body.version, req.body.waitSeconds ?? 20, gone.signal);
    if (chunk) res.json({ data: chunk });
    else res.status(204).end();
  });

  router.post('/api/v1/scanner/chunks/:chunkId/reports', async (req, res) => {
    res.json({ data: { state: await chunks.report(req.principal!, req.params.chunkId, req.body) } });
  });

  router.post('/api/v1/scanner/chunks/:chunkId/pins', async (req, res) => {
    const { attempt, kind, address, port, fingerprint, detail } = req.body;
    const pinned = await chunks.pin(req.principal!, req.params.chunkId, attempt, kind, address, port, { fingerprint, detail });
    res.json({ data: { pinned: pinned ? { fingerprint: pinned.fingerprint, detail: pinned.detail } : null } });
  });

  router.post('/api/v1/scanner/chunks/:chunkId/host-counts', async (req, res) => {
    res.json({ data: { before: await chunks.countHost(req.principal!, req.params.chunkId, req.body.attempt, req.body.method) } });
  });

  return router;
}
