import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * zod's `z` is a namespace re-exported as a value: importing it makes the bundle build all of
 * zod's ~1,000 namespace getters at every start and keep code nothing calls (8–18 ms of a `run`,
 * bench/RESULTS.md). `import * as z from 'zod'` reads the same and lets esbuild bind each use.
 */
const ZOD_NAMESPACE = {
  selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
  message: "Use `import * as z from 'zod'` (see ZOD_NAMESPACE in eslint.config.js).",
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // The launcher is CommonJS (bin/package.json), so that `run` never sets up the ES module loader.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: { 'no-restricted-syntax': ['error', ZOD_NAMESPACE] },
  },
  {
    // src/core stays headless: no UI or terminal packages.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['react', 'react/*', 'ink', 'ink-*', 'chalk'] }],
    },
  },
);
