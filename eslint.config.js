// ESLint (flat config) over the extension and the archive viewer: plain ES modules in the
// browser, one quote style (single, as in the Python code's string literals), no bundler.
// `make lint` runs it; `npm ci` installs it into node_modules/ (not committed).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/**', 'dist/**', 'build/**', '.venv/**'] },
  js.configs.recommended,
  {
    files: ['extension/**/*.js', 'host/viewer/static/**/*.js'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions },
    },
    rules: {
      quotes: ['error', 'single', { avoidEscape: true, allowTemplateLiterals: false }],
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'smart'],
      'no-var': 'error',
      'prefer-const': 'error',
    },
  },
  {
    files: ['eslint.config.js'],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
];
