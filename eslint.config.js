// Flat config: typescript-eslint's recommended rules over the TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.parley/**', 'shared/contracts/types.gen.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // The console's dashboard: plain browser modules; mermaid and XMPP are the vendored globals.
    files: ['web/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(['window', 'document', 'location', 'fetch', 'EventSource', 'Node', 'crypto', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'console'].map((g) => [g, 'readonly'])),
    },
  },
  {
    files: ['agents/**/*.ts', 'shared/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
);
