import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The app's Prometheus series (E3). One registry per app, so several apps in one process (tests)
 * never share counters. No label ever carries a user name, a path or a share hash.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'coffer_http_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'coffer_http_request_duration_seconds',
      help: 'HTTP request duration by route template',
      labelNames: ['method', 'route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    loginFailures: new Counter({ name: 'coffer_login_failures_total', help: 'failed logins', registers: [registry] }),
    throttled: new Counter({
      name: 'coffer_throttled_total',
      help: 'requests refused by a throttle',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    tusActive: new Gauge({ name: 'coffer_tus_uploads_active', help: 'tus uploads in progress', registers: [registry] }),
    sessionsActive: new Gauge({ name: 'coffer_sessions_active', help: 'live sessions', registers: [registry] }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
