// The bounds and settings of the scan of chunks in one process, a central worker's or a remote
// scanner's: one sweep engine per process, whose probe rate and adaptive time-out span every chunk
// it runs.
import type { AppConfig } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import type { Metrics } from '../../platform/metrics.js';
import { SweepEngine } from './connectors/sweep/sweep-engine.js';
import type { ChunkScanSettings } from './discovery-runner.js';

/** `excluded`: host:port of the endpoints this process must never probe (the stores, or the service a scanner reports to). */
export function chunkScanSettings(config: AppConfig, metrics: Metrics, logger: Logger, excluded: Set<string>): ChunkScanSettings {
  const engine = new SweepEngine(
    { probeRate: config.discoveryProbeRate, minTimeoutMs: config.discoverySweepMinTimeoutMs, maxTimeoutMs: config.discoveryConnectTimeoutMs, nmapPath: config.discoveryNmapPath },
    {
      probes: metrics.counter({ name: 'discovery_sweep_probes_total', help: 'SWEEP probes sent by this worker, by kind: tcp (a connect, one SYN) and icmp (an echo request). None is dropped: a probe waits for its turn under service.discovery.probe-rate.', labelNames: ['kind'] }),
      timeout: metrics.gauge({ name: 'discovery_sweep_timeout_seconds', help: 'The wait of a SWEEP probe now: the answers\' smoothed round-trip time plus four deviations, between service.discovery.sweep-min-timeout-ms and connect-timeout-ms.' }),
    },
    logger,
  );
  return {
    sweep: { ports: config.discoverySweepPorts, timeoutMs: config.discoveryConnectTimeoutMs, icmp: config.discoveryIcmp, engine },
    concurrency: config.discoveryConcurrency,
    hostConcurrency: config.discoveryHostConcurrency,
    hostTimeoutMs: config.discoveryHostTimeoutMs,
    excluded,
  };
}
