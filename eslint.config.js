// Layering rules (after VS Code's): the engine never imports Electron; the renderer only imports
// types from the engine's contract.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', '.eval/', '.bench/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['native/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'native/ is the engine: plain Node only, never Electron.' }],
          patterns: [
            { group: ['electron/*', '**/electron/**'], message: 'native/ must not import Electron code.' },
            { group: ['**/renderer/**'], message: 'native/ must not import the renderer.' },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The renderer talks to the engine only through the contract.' }],
          patterns: [
            {
              group: ['**/native/*', '!**/native/contract', '**/native/*/**', '!**/native/contract/**'],
              message: 'The renderer may import only types from native/contract.',
            },
            { group: ['node:*'], message: 'The renderer has no Node APIs.' },
          ],
        },
      ],
    },
  },
);
