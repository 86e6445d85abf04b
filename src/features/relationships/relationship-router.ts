// GET /relationships (docs/interface.md §4.5): graph edges only, filtered, paginated with full links (keyset
// cursors in prev, next and last).
import { Router } from 'express';
import { queryOf } from '../../platform/http/api-query.js';
import { pageEnvelope, pageRequest, pageWindow, windowed } from '../../platform/http/pagination.js';
import { countsTotal, RELATIONSHIP_PAGE, relationshipKey, type RelationshipReads } from './relationship-row.js';

export function relationshipRouter(relationships: RelationshipReads): Router {
  return Router().get('/api/v1/relationships', async (req, res) => {
    const q = queryOf(req, 'listRelationships');
    const request = pageRequest(req.query, RELATIONSHIP_PAGE.default, RELATIONSHIP_PAGE.max);
    const filter = { types: q.type, sourceCategories: q.sourceCategory, targetCategories: q.targetCategory, activeOnly: q.activeOnly !== false, updatedAfter: q.updatedAfter };
    // The counts by type give the total, size the last page and place an offset: a page that
    // seeks after or before a cursor, or starts at the first row, reads them with its rows.
    const ahead = pageWindow(request);
    const [total, window, rows] = ahead.kind === 'after' || ahead.kind === 'before' || (ahead.kind === 'offset' && ahead.offset === 0)
      ? await relationships.pageAndCounts(filter, ahead).then(({ rows, counts }) => [countsTotal(counts), ahead, rows] as const)
      : await relationships.countsByType(filter).then(async (counts) => {
          const window = pageWindow(request, countsTotal(counts));
          return [countsTotal(counts), window, await relationships.page(filter, window, counts)] as const;
        });
    const page = windowed(window, rows, relationshipKey);
    res.json(pageEnvelope(req, page.rows, total, request, page));
  });
}
