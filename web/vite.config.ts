import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { lateEnglish } from './lateEnglish';

// docs/api.md §5.2 (the page template): the server replaces /__COFFER_STATIC__ with its static URL (which carries
// --baseurl), and JS chunks resolve theirs at run time through window.__prependStaticUrl, so one
// build serves every base URL.
const STATIC = '/__COFFER_STATIC__/';

/** The protocol package's one-file entries the client runs (the rest of it is types only), from source. */
export const protocolEntries = {
  '@coffer/protocol/oidc-checks': fileURLToPath(new URL('../packages/protocol/src/oidc-checks.ts', import.meta.url)),
};

/**
 * src/early.ts as an entry of its own, loaded by the page before the app's bundle: with no imports,
 * it runs as soon as the page is parsed instead of after every chunk the app's entry needs.
 */
function earlyEntry(): Plugin {
  let ref = '';
  return {
    name: 'coffer-early-entry',
    apply: 'build',
    buildStart() {
      ref = this.emitFile({ type: 'chunk', id: 'src/early.ts', name: 'early' });
    },
    transformIndexHtml: {
      order: 'post',
      // Async: it runs as soon as it has arrived, not after the parser and the style sheets (the
      // injected config it reads comes before it in the page).
      handler(html, ctx) {
        const file = ctx.bundle && ref ? Object.values(ctx.bundle).find((c) => c.type === 'chunk' && c.name === 'early') : undefined;
        const at = html.indexOf('<script type="module"');
        if (!file || at < 0) throw new Error('the early entry or the app entry is missing');
        const tag = `<script type="module" async crossorigin src="${STATIC}${file.fileName}"></script>\n    `;
        return html.slice(0, at) + tag + html.slice(at);
      },
    },
  };
}

export default defineConfig(({ command }) => ({
  root: import.meta.dirname,
  base: command === 'build' ? STATIC : '/',
  plugins: [react(), earlyEntry(), lateEnglish()],
  resolve: { alias: protocolEntries },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts: the page's CSP allows inline script only by nonce.
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: true,
  },
  experimental: {
    renderBuiltUrl(filename, { hostType }) {
      if (hostType === 'js') return { runtime: `window.__prependStaticUrl(${JSON.stringify(filename)})` };
      return STATIC + filename;
    },
  },
  // `npm run dev -w @coffer/web`: the API and static images come from a running Coffer server.
  server: {
    host: '127.0.0.1',
    proxy: Object.fromEntries(
      ['/api', '/static'].map((p) => [p, { target: process.env.COFFER_URL ?? 'http://127.0.0.1:8080' }]),
    ),
  },
}));
