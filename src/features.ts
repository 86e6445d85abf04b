// The service's features, one line each: the container, the routers, the jobs and the long-running
// parts are derived from this list (src/container.ts, src/app.ts, src/start-service.ts). A feature
// comes after those whose services it needs (buildFeatures refuses the list otherwise). Routers are
// tried in this order, but only those holding a request's path (route-index.ts), and of different
// features only diagnosis and alerts share paths (/api/v1/runs). Jobs are defined in this order,
// and /metrics lists its series in the order the features register them: both as they were before
// this list (graph-query last for that).
import { alertsFeature } from './features/alerts/alerts-feature.js';
import { assetsFeature } from './features/assets/assets-feature.js';
import { authFeature } from './features/auth/auth-feature.js';
import { changesFeature } from './features/changes/changes-feature.js';
import { credentialCheckFeature } from './features/credential-check/credential-check-feature.js';
import { credentialsFeature } from './features/credentials/credentials-feature.js';
import { diagnosisFeature } from './features/diagnosis/diagnosis-feature.js';
import { discoveryFeature } from './features/discovery/discovery-feature.js';
import { exportsFeature } from './features/exports/exports-feature.js';
import { flowsFeature } from './features/flows/flows-feature.js';
import { graphQueryFeature } from './features/graph-query/graph-query-feature.js';
import { healthFeature } from './features/health/health-feature.js';
import { historyFeature } from './features/history/history-feature.js';
import { importFeature } from './features/import/import-feature.js';
import { insightsFeature } from './features/insights/insights-feature.js';
import { inventoryFeature } from './features/inventory/inventory-feature.js';
import { maintenanceFeature } from './features/maintenance/maintenance-feature.js';
import { metricsFeature } from './features/metrics/metrics-feature.js';
import { relationshipsFeature } from './features/relationships/relationships-feature.js';
import { scannersFeature } from './features/scanners/scanners-feature.js';
import { schemaFeature } from './features/schema/schema-feature.js';
import { searchFeature } from './features/search/search-feature.js';
import { topologyFeature } from './features/topology/topology-feature.js';
import { viewsFeature } from './features/views/views-feature.js';

export const FEATURES = [
  healthFeature,
  authFeature,
  credentialsFeature,
  inventoryFeature,
  historyFeature,
  relationshipsFeature,
  assetsFeature,
  changesFeature,
  topologyFeature,
  insightsFeature,
  schemaFeature,
  importFeature,
  maintenanceFeature,
  exportsFeature,
  discoveryFeature,
  scannersFeature,
  diagnosisFeature,
  alertsFeature,
  metricsFeature,
  flowsFeature,
  graphQueryFeature,
  viewsFeature,
  searchFeature,
  credentialCheckFeature,
] as const;
