/**
 * The OIDC integration tests' set-up: a Coffer test server and the test provider (oidc-support.ts,
 * which the e2e tests import too — this file stays out of it, as it pulls in the whole server).
 */
import { afterAll, beforeAll } from 'vitest';
import { defaultOidc, type OidcConfig } from '../src/features/settings/repository.js';
import { startServer, type TestServer } from './harness.js';
import { CLIENT, startProvider, type TestProvider } from './oidc-support.js';

/** A Coffer test server and a provider that knows its callback, for one describe block. */
export interface OidcTestbed {
  srv: TestServer;
  op: TestProvider;
  /** Coffer's callback, registered at the provider. */
  redirectUrl: string;
  /** Turns the oidc method on with the provider's client, the testbed's defaults and `over`. */
  configure(over?: Partial<OidcConfig>): Promise<void>;
}

/** Starts both before the block's tests (beforeAll) and closes them after; `defaults` go into every `configure`. */
export function oidcTestbed(defaults: Partial<OidcConfig> = {}): OidcTestbed {
  const bed = {
    redirectUrl: '',
    async configure(over: Partial<OidcConfig> = {}) {
      await bed.srv.deps.settings.saveAuther({
        ...(await bed.srv.deps.settings.auther()),
        method: 'oidc',
        oidc: {
          ...defaultOidc(),
          issuer: bed.op.issuer,
          clientId: CLIENT.id,
          clientSecret: CLIENT.secret,
          redirectUrl: bed.redirectUrl,
          ...defaults,
          ...over,
        },
      });
    },
  } as OidcTestbed;
  beforeAll(async () => {
    bed.srv = await startServer();
    bed.redirectUrl = `${bed.srv.url}/api/oidc/callback`;
    bed.op = await startProvider([bed.redirectUrl]);
  });
  afterAll(async () => {
    await bed.op?.close();
    await bed.srv?.close();
  });
  return bed;
}
