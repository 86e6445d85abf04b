// GET /assets (docs/interface.md §4.1, with the envelope of docs/interface.md, decision 1), one asset (now, or
// as it was at a time), its relationships, provenance and history, and the lifecycle actions of docs/interface.md §3.1.
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageEnvelope, pageRequest, pageWindow, parseSort, windowed } from '../../platform/http/pagination.js';
import { actorOf } from '../auth/authentication-middleware.js';
import { HISTORY_PAGE, type HistoryService } from '../history/history-service.js';
import type { ProvenanceService } from '../inventory/provenance-service.js';
import { RELATIONSHIP_PAGE, type RelationshipReads, type RelationshipRow } from '../relationships/relationship-row.js';
import type { AssetSortField, ValueField } from './asset-summary.js';
import { parentLinkOf, type AssetReadModel, type AssetRow } from './asset-read-model.js';
import type { AssetService } from './asset-service.js';

// The values of a field listed by default, and at most (api.yaml, listAssetValues).
const DEFAULT_VALUE_LIMIT = 200;
const MAX_VALUE_LIMIT = 1000;

/** The link of a synthesized row to its host as a relationship row (docs/interface.md §2.5). */
function syntheticRelationships(row: AssetRow): RelationshipRow[] {
  const link = parentLinkOf(row);
  const host = row.parent;
  if (!link || !host) return [];
  const self = { id: row.id, displayName: row.displayName, assetType: row.assetType, assetCategory: row.assetCategory };
  const [source, target] = link.source === row.id ? [self, host] : [host, self];
  return [{
    id: link.id, relationshipType: link.type, active: true,
    sourceAssetId: source.id, sourceDisplayName: source.displayName, sourceAssetType: source.assetType, sourceAssetCategory: source.assetCategory,
    targetAssetId: target.id, targetDisplayName: target.displayName, targetAssetType: target.assetType, targetAssetCategory: target.assetCategory,
    firstSeenAt: row.firstSeenAt ?? null, lastSeenAt: row.lastSeenAt ?? null, sources: [], updatedAt: null, retiredAt: null,
  }];
}

export function assetRouter(readModel: AssetReadModel, assets: AssetService, relationships: RelationshipReads, provenance: ProvenanceService, history: HistoryService): Router {
  const router = Router();

  router.get('/api/v1/assets', async (req, res) => {
    const q = queryOf(req, 'listAssets');
    const page = pageRequest(req.query, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const filter = {
      types: q.type, categories: q.category, statuses: q.status, sites: q.site, environments: q.environment,
      // Lower-case, as the stores write ids: the row counts compare them as text.
      q: q.q, updatedAfter: q.updatedAfter, hostId: q.hostId?.toLowerCase(),
    };
    const sort = parseSort<AssetSortField>(q.sort, { field: 'displayName', direction: 'asc' });
    const { rows, total, nav } = await readModel.page(filter, sort, page);
    // Also the field names of the synthesized-asset listing (docs/interface.md, decision 1).
    res.json({ ...pageEnvelope(req, rows, total, page, nav), size: page.size, totalElements: total });
  });

  // Before /assets/:assetId, which it would otherwise reach.
  router.get('/api/v1/assets/values', async (req, res) => {
    const q = queryOf(req, 'listAssetValues');
    const limit = Math.min(q.limit ?? DEFAULT_VALUE_LIMIT, MAX_VALUE_LIMIT);
    // Required by api.yaml: the validator refused a request without it.
    const field = q.field as ValueField;
    const { rows, capped } = await readModel.values(field, limit);
    res.json({ data: rows, field, limit, capped });
  });

  router.get('/api/v1/assets/:assetId', async (req, res) => {
    const { at } = queryOf(req, 'getAsset');
    res.json({ data: at === undefined ? await assets.get(req.params.assetId) : await assets.getAt(req.params.assetId, new Date(at)) });
  });

  router.get('/api/v1/assets/:assetId/history', async (req, res) => {
    const q = queryOf(req, 'getAssetHistory');
    const id = req.params.assetId;
    const request = pageRequest(req.query, HISTORY_PAGE.default, HISTORY_PAGE.max);
    const filter = { fields: q.field, from: q.from === undefined ? undefined : Date.parse(q.from), to: q.to === undefined ? undefined : Date.parse(q.to) };
    // The total places only the last page: any other is read beside its count.
    const tail = request.cursor !== undefined && 'tail' in request.cursor;
    const counted = tail ? await history.count(id, filter) : undefined;
    const window = pageWindow(request, counted);
    const [, total, entries] = await Promise.all([assets.require(id), counted ?? history.count(id, filter), history.read(id, filter, window)]);
    const page = windowed(window, entries, (e) => e.key);
    res.json(pageEnvelope(req, page.rows.map((e) => e.entry), total, request, page));
  });

  router.get('/api/v1/assets/:assetId/provenance', async (req, res) => {
    const assetId = req.params.assetId;
    await assets.require(assetId);
    res.json({ data: { assetId, fields: await provenance.of(assetId) } });
  });

  router.get('/api/v1/assets/:assetId/relationships', async (req, res) => {
    const assetId = req.params.assetId;
    await assets.require(assetId);
    const q = queryOf(req, 'listAssetRelationships');
    const page = pageRequest(req.query, RELATIONSHIP_PAGE.default, RELATIONSHIP_PAGE.max);
    // A synthesized row's one relationship is the link to its host.
    const row = await readModel.synthesizedRow(assetId);
    if (row) {
      const types: readonly string[] = q.type ?? [];
      const links = syntheticRelationships(row).filter((r) => !types.length || types.includes(r.relationshipType));
      res.json(pageEnvelope(req, links.slice(page.page * page.size, (page.page + 1) * page.size), links.length, page));
      return;
    }
    const { rows, total } = await relationships.ofAsset(
      assetId,
      { types: q.type, activeOnly: q.activeOnly !== false },
      page.page * page.size,
      page.size,
    );
    res.json(pageEnvelope(req, rows, total, page));
  });

  router.post('/api/v1/assets/:assetId/decommission', async (req, res) => {
    res.json({ data: await assets.decommission(actorOf(req), req.params.assetId) });
  });

  router.post('/api/v1/assets/:assetId/reactivate', async (req, res) => {
    res.json({ data: await assets.reactivate(actorOf(req), req.params.assetId) });
  });

  return router;
}
