// Flat config: typescript-eslint's recommended rules over the TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

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
  {
    // No import cycles (issue 10 §2): a module graph a newcomer can read from the bottom up.
    files: ['agents/**/*.ts', 'shared/**/*.ts', 'skills/**/*.ts', 'scripts/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
);
