import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { lateEnglish } from './lateEnglish';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), lateEnglish()],
  test: {
    name: 'web',
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
  },
});
