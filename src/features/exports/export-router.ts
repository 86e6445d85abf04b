// GET /export/{dataset}.{csv,json} for every dataset of export-service.ts (roles per api.yaml).
import { Router } from 'express';
import type { Counter } from 'prom-client';
import { queryOf } from '../../platform/http/api-query.js';
import { EXPORT_DATASETS, type ExportService } from './export-service.js';
import { ExportWriter, type ExportFormat } from './export-writer.js';

export function exportRouter(exports: ExportService, exportedRows: Counter<'dataset' | 'format'>): Router {
  const router = Router();
  for (const dataset of EXPORT_DATASETS) {
    for (const format of ['csv', 'json'] as ExportFormat[]) {
      router.get(`/api/v1/export/${dataset}.${format}`, async (req, res) => {
        const writer = new ExportWriter(res, format, dataset);
        // Rows of an export cut short count too: they were sent.
        res.on('close', () => exportedRows.inc({ dataset, format }, writer.rows));
        if (dataset === 'assets') {
          const q = queryOf(req, 'exportAssetsCsv', 'exportAssetsJson');
          await exports.assetsExport(writer, format, { q: q.q, types: q.type, categories: q.category, statuses: q.status, sites: q.site, environments: q.environment, updatedAfter: q.updatedAfter });
        } else if (dataset === 'relationships') {
          const q = queryOf(req, 'exportRelationshipsCsv', 'exportRelationshipsJson');
          await exports.relationshipsExport(writer, format, { types: q.type, activeOnly: q.activeOnly !== false, updatedAfter: q.updatedAfter }, q.assetId);
        } else {
          // The sub-record datasets: each takes some of these (api.yaml refuses the others).
          const q = queryOf(
            req, 'exportSoftwareCsv', 'exportSoftwareJson', 'exportProcessesCsv', 'exportProcessesJson', 'exportServicesCsv', 'exportServicesJson',
            'exportInterfacesCsv', 'exportInterfacesJson', 'exportInterfaceConnectionsCsv', 'exportInterfaceConnectionsJson',
          );
          await exports.subRecordExport(writer, format, dataset, {
            q: q.q, sites: q.site, environments: q.environment, assetId: q.assetId, publisher: q.publisher, packageManager: q.packageManager, username: q.username, state: q.state, type: q.type, updatedAfter: q.updatedAfter,
          });
        }
      });
    }
  }
  return router;
}
