// Layering rules (after VS Code's): the engine never imports Electron; the renderer only imports
// types from the engine's contract; inside native/, a folder imports only folders of lower layers
// (or its own), and only the faces (cli/, server/, worker/) import the composition root (engine.ts,
// config.ts, model-discovery.ts, idle-gc.ts). docs/ARCHITECTURE.md lists the layers.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** native/ folders, lowest first; a folder may import its own layer and the layers before it. */
const LAYERS = [
  ['contract'],
  ['base', 'text'],
  ['parse', 'chunk', 'fault-codes', 'embed', 'ocr', 'rerank'],
  ['store'],
  ['search'],
  ['library', 'llm'],
  ['answer'],
  ['pipelines'],
  ['packs'],
];
const FACES = ['cli', 'server', 'worker'];
const ROOT_FILES = ['engine', 'config', 'model-discovery', 'idle-gc'];

const NATIVE_BASE = {
  paths: [{ name: 'electron', message: 'native/ is the engine: plain Node only, never Electron.' }],
  patterns: [
    { group: ['electron/*', '**/electron/**'], message: 'native/ must not import Electron code.' },
    { group: ['**/renderer/**'], message: 'native/ must not import the renderer.' },
  ],
};

/** One rule block per layer: the folders above it (and the faces and the root) are off limits. */
const layerBlocks = LAYERS.map((folders, i) => {
  const above = [...LAYERS.slice(i + 1).flat(), ...FACES];
  return {
    files: folders.map((f) => `native/${f}/**`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...NATIVE_BASE,
          patterns: [
            ...NATIVE_BASE.patterns,
            {
              group: above.map((f) => `**/${f}/**`),
              message: `native/${folders.join('|')} is below ${above.join(', ')}: a stage never imports a folder above it (docs/ARCHITECTURE.md).`,
            },
            {
              group: ROOT_FILES.map((f) => `**/${f}.js`),
              message: 'Only the faces (cli/, server/, worker/) import the composition root; take settings as arguments.',
            },
          ],
        },
      ],
    },
  };
});

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
    rules: { 'no-restricted-imports': ['error', NATIVE_BASE] },
  },
  ...layerBlocks,
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
