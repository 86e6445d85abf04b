// GET /export/{assets,software,processes,services}.{csv,json} (roles per api.yaml).
import { Router } from 'express';
import type { AssetFilter } from '../assets/asset-graph-repository.js';
import { ExportWriter, type ExportFormat } from './export-writer.js';
import { CSV_CELL_FORMATS, EXPORT_COLUMNS, type ExportDataset, type ExportService } from './export-service.js';

type Query = Record<string, unknown>;
const str = (q: Query, key: string) => q[key] as string | undefined;

export function exportRouter(exports: ExportService): Router {
  const router = Router();
  for (const dataset of Object.keys(EXPORT_COLUMNS) as ExportDataset[]) {
    for (const format of ['csv', 'json'] as ExportFormat[]) {
      router.get(`/api/v1/export/${dataset}.${format}`, async (req, res) => {
        const writer = new ExportWriter(res, format, EXPORT_COLUMNS[dataset], dataset, CSV_CELL_FORMATS);
        const q = req.query as Query;
        if (dataset === 'assets') {
          const filter: AssetFilter = {
            types: q.type as string[] | undefined,
            categories: q.category as string[] | undefined,
            statuses: q.status as string[] | undefined,
            sites: q.site as string[] | undefined,
            environments: q.environment as string[] | undefined,
          };
          await exports.assetsExport(writer, filter);
        } else {
          await exports.subRecordExport(writer, dataset, {
            assetId: str(q, 'assetId'),
            publisher: str(q, 'publisher'),
            packageManager: str(q, 'packageManager'),
            username: str(q, 'username'),
            state: str(q, 'state'),
          });
        }
      });
    }
  }
  return router;
}
