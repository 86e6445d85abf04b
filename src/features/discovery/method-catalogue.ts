// What GET /discovery/methods serves: every connector's declaration as a client can use it (its
// settings as JSON Schema, its own error codes with their meaning), so that the web UI and other
// clients list methods and build target forms from the registry instead of a copy of it.
import { z } from 'zod';
import type { components } from '../../platform/http/api-types.js';
import type { InventoryConnector } from './connectors/connector.js';
import { CONNECTORS } from './connectors/registry.js';

export type MethodDescription = components['schemas']['DiscoveryMethodDescription'];

/** The methods in registry order (the order a run takes them at an address), built once at load. */
export const METHOD_CATALOGUE: readonly MethodDescription[] = CONNECTORS.map((c) => {
  const inventory: InventoryConnector | undefined = c.stage === 'inventory' ? c : undefined;
  return {
    method: c.method,
    stage: c.stage,
    description: c.description,
    enabledByDefault: c.enabledByDefault,
    defaultPort: inventory?.defaultPort ?? null,
    credentialKinds: [...(inventory?.credentialKinds ?? [])],
    credentialsOptional: inventory?.credentialsOptional ?? false,
    settings: inventory?.settings ? z.toJSONSchema(inventory.settings) : null,
    triedWhere: inventory?.triedWhere ?? null,
    errorCodes: Object.entries(c.errors).map(([code, definition]) => ({ code, meaning: definition.description })),
  };
});
