import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { lateEnglish } from './lateEnglish';
import { protocolEntries } from './vite.config';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), lateEnglish()],
  resolve: { alias: protocolEntries },
  test: {
    name: 'web',
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
  },
});
