// GET /relationships (spec 4.5): graph edges only, filtered, paginated with full links.
import { Router } from 'express';
import { pageEnvelope, pageRequest } from '../../platform/http/pagination.js';
import type { RelationshipGraphRepository } from './relationship-graph-repository.js';

/** Page size of relationship lists: default 200, values above 1000 capped (spec 4.5). */
export const RELATIONSHIP_PAGE = { default: 200, max: 1000 } as const;

export function relationshipRouter(relationships: RelationshipGraphRepository): Router {
  return Router().get('/api/v1/relationships', async (req, res) => {
    const page = pageRequest(req.query, RELATIONSHIP_PAGE.default, RELATIONSHIP_PAGE.max);
    const { rows, total } = await relationships.page(
      {
        types: req.query.type as string[] | undefined,
        sourceCategories: req.query.sourceCategory as string[] | undefined,
        targetCategories: req.query.targetCategory as string[] | undefined,
        activeOnly: (req.query.activeOnly as unknown) !== false,
      },
      page.page * page.size,
      page.size,
    );
    res.json(pageEnvelope(req, rows, total, page));
  });
}
