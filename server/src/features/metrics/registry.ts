import { hostname } from 'node:os';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Cluster-wide numbers, read from the database when /metrics is scraped. */
export interface ClusterSources {
  sessions(): Promise<number>;
  users(): Promise<number>;
  shares(): Promise<number>;
  uploads(): Promise<number>;
}

/** This process's name in the `instance` label: COFFER_INSTANCE, else host name and process id. */
export function instanceName(env: NodeJS.ProcessEnv = process.env): string {
  return env.COFFER_INSTANCE || `${hostname()}:${process.pid}`;
}

/**
 * The app's Prometheus series (E3), each with one meaning (docs/api.md E3):
 * - per-instance series (what this process counted or measured: requests, durations, failures,
 *   throttling, the process's own metrics) carry an `instance` label: sum them over instances;
 * - cluster-wide gauges (sessions, users, shares, unfinished uploads) have no `instance` label and
 *   are read from the shared database at each scrape: every instance answers the same number, so
 *   take one (max), never the sum.
 * One pair of registries per app, so several apps in one process (tests) never share counters. No
 * label ever carries a user name, a path or a share hash.
 */
export function createMetrics(opts: { instance?: string; cluster?: ClusterSources; worker?: number } = {}) {
  const registry = new Registry();
  registry.setDefaultLabels({ instance: opts.instance ?? instanceName() });
  collectDefaultMetrics({ register: registry });
  // Which process answered this scrape: with --workers N, each worker has its own series
  // (docs/deployment.md); the slot and pid tell them apart. Only where /metrics is allowed (E3).
  new Gauge({
    name: 'coffer_worker_info',
    help: 'the process that answered: its --workers slot (0 = a process alone) and pid',
    labelNames: ['worker', 'pid'] as const,
    registers: [registry],
  }).set({ worker: String(opts.worker ?? 0), pid: String(process.pid) }, 1);
  const cluster = new Registry();
  /** A gauge set from `read` at each scrape; a failed read keeps the last value. */
  const fromDatabase = (name: string, help: string, read?: () => Promise<number>) =>
    new Gauge({
      name,
      help,
      registers: [cluster],
      async collect() {
        if (!read) return;
        try {
          this.set(await read());
        } catch {
          // the database is down: /ready says so; the scrape still answers
        }
      },
    });
  return {
    registry,
    cluster,
    /** Both registries in the Prometheus text format. */
    async text(): Promise<string> {
      return (await registry.metrics()) + (await cluster.metrics());
    },
    requests: new Counter({
      name: 'coffer_http_requests_total',
      help: 'HTTP requests this instance answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'coffer_http_request_duration_seconds',
      help: 'HTTP request duration on this instance, by route template',
      labelNames: ['method', 'route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    loginFailures: new Counter({ name: 'coffer_login_failures_total', help: 'failed logins this instance answered', registers: [registry] }),
    throttled: new Counter({
      name: 'coffer_throttled_total',
      help: 'requests this instance refused by a throttle',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    tusActive: fromDatabase('coffer_tus_uploads_active', 'unfinished tus uploads, all instances (from the database)', opts.cluster?.uploads),
    sessionsActive: fromDatabase('coffer_sessions_active', 'live sessions, all instances (from the database)', opts.cluster?.sessions),
    users: fromDatabase('coffer_users', 'user accounts (from the database)', opts.cluster?.users),
    shares: fromDatabase('coffer_shares', 'share links not expired (from the database)', opts.cluster?.shares),
    indexEntries: new Gauge({ name: 'coffer_index_entries', help: 'entries in the file index, as this instance sees it', registers: [registry] }),
    indexProgress: new Gauge({ name: 'coffer_index_build_percent', help: 'file index build progress on this instance, 0-100 (100 when ready)', registers: [registry] }),
    indexReady: new Gauge({ name: 'coffer_index_ready', help: '1 when search and folder sizes answer from the file index on this instance', registers: [registry] }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
