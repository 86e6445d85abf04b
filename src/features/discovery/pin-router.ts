// Pinned SSH host keys and TLS certificates over HTTP (DISCOVERY_ADMIN, ADMINISTRATOR per api.yaml).
import { Router } from 'express';
import { actorOf } from '../auth/authentication-middleware.js';
import type { PinService } from './pin-service.js';

export function pinRouter(pins: PinService): Router {
  return Router().post('/api/v1/discovery/pins/accept', async (req, res) => {
    res.json({ data: await pins.accept(actorOf(req), req.body) });
  });
}
