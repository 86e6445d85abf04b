// The composition root: the platform (settings, logger, store clients, job queue, metrics) and then
// each feature of src/features.ts in its order, every one given the platform and what the features
// before it provide. No other module creates a database client or reads the environment.
import { FEATURES } from './features.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { AppConfig } from './platform/config.js';
import { buildFeatures, type ProvidedBy } from './platform/feature.js';
import type { Logger } from './platform/logger.js';
import { createPlatform, type Platform, type StoreAddresses } from './platform/platform.js';

/** The platform and every feature's services, by the names the features give them. */
export type Container = Platform & ProvidedBy<typeof FEATURES>;

export function createContainer(config: AppConfig, logger: Logger, stores: StoreAddresses, clock: Clock = systemClock): Container {
  return buildFeatures(FEATURES, createPlatform(config, logger, stores, clock));
}
