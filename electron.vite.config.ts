import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { CONTENT_SECURITY_POLICY_META } from './native/server/csp.js';

/**
 * Pages loaded from file:// get no response headers, so the built index.html carries the CSP as a
 * <meta> tag too (the HTTP server and the Electron session also send it as a header). Dev builds are
 * left alone: Vite's dev server needs an inline preamble.
 */
function cspMeta(): Plugin {
  return {
    name: 'manualdesk-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY_META }, injectTo: 'head-prepend' },
    ],
  };
}

/**
 * Files the bundled engine (out/main/worker.js) opens next to itself, as the sources do next to theirs:
 * the OCR worker thread's CommonJS entry (native/ocr/tesseract.ts resolves it beside its own module).
 */
function engineSideFiles(): Plugin {
  return {
    name: 'manualdesk-engine-side-files',
    apply: 'build',
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'worker-entry.cjs',
        source: readFileSync(resolve(import.meta.dirname, 'native/ocr/worker-entry.cjs'), 'utf8'),
      });
    },
  };
}

export default defineConfig({
  main: {
    plugins: [engineSideFiles()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(import.meta.dirname, 'electron/main/index.ts'),
          // The engine host, started as a utility process (electron/main/engine-host.ts).
          worker: resolve(import.meta.dirname, 'native/worker/entry.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'electron/preload/index.ts') },
        // Sandboxed preloads cannot be ES modules.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'renderer'),
    // Relative asset URLs: the page is loaded from file:// in Electron and from / in browser mode.
    base: './',
    plugins: [react(), cspMeta()],
    build: {
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      minify: true,
      emptyOutDir: true,
      rollupOptions: { input: { index: resolve(import.meta.dirname, 'renderer/index.html') } },
    },
  },
});
