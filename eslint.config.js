import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'e2e/artifacts/**', 'bench/results/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', fetch: 'readonly', performance: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', window: 'readonly', document: 'readonly' } },
  },
  {
    files: ['server/src/**/*.ts'],
    ignores: ['server/src/fs/**', 'server/src/db/**', 'server/src/main.ts', 'server/src/services.ts', 'server/src/cli/**', 'server/src/features/health/**', 'server/src/**/*.test.ts'],
    rules: {
      // Only fs/ touches user files (architecture.md "Paths"); infrastructure is listed above.
      'no-restricted-imports': ['error', { paths: [
        { name: 'node:fs', message: 'go through server/src/fs/' },
        { name: 'node:fs/promises', message: 'go through server/src/fs/' },
        { name: 'fs', message: 'go through server/src/fs/' },
        { name: 'fs/promises', message: 'go through server/src/fs/' },
      ] }],
    },
  },
  // web/ (style.md §11): React hooks and accessibility rules, all errors; the client never imports the server.
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    languageOptions: { globals: globals.browser, parserOptions: { ecmaFeatures: { jsx: true } } },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
      'react-hooks/incompatible-library': 'error',
      'react-hooks/unsupported-syntax': 'error',
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/server/**', '@coffer/server'], message: 'web/ never imports server/' }] }],
      'no-restricted-syntax': ['error', {
        selector: "JSXAttribute[name.name='className'] Literal[value=/(^|\\s)icon-button/]",
        message: 'An icon-only button is components/IconButton: one look, its label as accessible name and tooltip.',
      }],
    },
  },
  { files: ['web/src/components/IconButton.tsx'], rules: { 'no-restricted-syntax': 'off' } },
  { files: ['e2e/**/*.{ts,mjs}', 'bench/client/**/*.{ts,mjs}', 'bench/files-ui/**/*.mjs'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
);
