// GET /export/{dataset}.{csv,json} for every dataset of export-service.ts (roles per api.yaml).
import { Router } from 'express';
import type { Counter } from 'prom-client';
import { EXPORT_DATASETS, type ExportService } from './export-service.js';
import { ExportWriter, type ExportFormat } from './export-writer.js';

type Query = Record<string, unknown>;
const str = (q: Query, key: string) => q[key] as string | undefined;
const list = (q: Query, key: string) => q[key] as string[] | undefined;

export function exportRouter(exports: ExportService, exportedRows: Counter<'dataset' | 'format'>): Router {
  const router = Router();
  for (const dataset of EXPORT_DATASETS) {
    for (const format of ['csv', 'json'] as ExportFormat[]) {
      router.get(`/api/v1/export/${dataset}.${format}`, async (req, res) => {
        const writer = new ExportWriter(res, format, dataset);
        // Rows of an export cut short count too: they were sent.
        res.on('close', () => exportedRows.inc({ dataset, format }, writer.rows));
        const q = req.query as Query;
        if (dataset === 'assets') {
          await exports.assetsExport(writer, format, {
            types: list(q, 'type'), categories: list(q, 'category'), statuses: list(q, 'status'), sites: list(q, 'site'), environments: list(q, 'environment'),
            updatedAfter: str(q, 'updatedAfter'),
          });
        } else if (dataset === 'relationships') {
          await exports.relationshipsExport(writer, format, { types: list(q, 'type'), activeOnly: (q.activeOnly as unknown) !== false, updatedAfter: str(q, 'updatedAfter') }, str(q, 'assetId'));
        } else {
          await exports.subRecordExport(writer, format, dataset, {
            assetId: str(q, 'assetId'), publisher: str(q, 'publisher'), packageManager: str(q, 'packageManager'), username: str(q, 'username'), state: str(q, 'state'),
            type: str(q, 'type'), updatedAfter: str(q, 'updatedAfter'),
          });
        }
      });
    }
  }
  return router;
}
