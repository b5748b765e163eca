import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// page-contract.md: the server replaces /__COFFER_STATIC__ with its static URL (which carries
// --baseurl), and JS chunks resolve theirs at run time through window.__prependStaticUrl, so one
// build serves every base URL.
const STATIC = '/__COFFER_STATIC__/';

export default defineConfig(({ command }) => ({
  root: import.meta.dirname,
  base: command === 'build' ? STATIC : '/',
  plugins: [react()],
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
