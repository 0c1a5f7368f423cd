'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS worker entry, as tesseract.js's worker code is CommonJS */
/**
 * Entry of the tesseract.js worker thread (CommonJS: tesseract.js's worker code is CommonJS).
 *
 * It is tesseract.js's own Node worker script with two changes, both about staying offline:
 * - fetch is replaced by a function that throws, so the worker can never reach the network
 *   (tesseract.js fetches language data from a CDN when a path looks like a URL or is missing);
 * - language data is read from the npm packages @tesseract.js-data/<lang> (LSTM "best_int"
 *   models, gzipped), or from a folder the caller names (langPath), never downloaded.
 * The wasm core is required from tesseract.js-core in node_modules by tesseract.js itself.
 */
const fs = require('node:fs');
const path = require('node:path');

const NETWORK_OFF = 'ManualDesk OCR works offline: the OCR worker tried to reach the network';
const noFetch = async (url) => {
  throw new Error(`${NETWORK_OFF} (${String(url)}). Language data must be installed locally.`);
};
globalThis.fetch = noFetch;

require('tesseract.js/src/worker-script/node/index.js');
const worker = require('tesseract.js/src/worker-script/index.js');
const getCore = require('tesseract.js/src/worker-script/node/getCore.js');
const gunzip = require('tesseract.js/src/worker-script/node/gunzip.js');
const cache = require('tesseract.js/src/worker-script/node/cache.js');

/** `<dir>/<lang>.traineddata[.gz]` → the file in the caller's folder, else in @tesseract.js-data/<lang>. */
function resolveLangFile(p) {
  if (fs.existsSync(p)) return p;
  const m = /^([A-Za-z_]+)\.traineddata(\.gz)?$/.exec(path.basename(p));
  if (!m) return p;
  try {
    const pkg = path.dirname(require.resolve(`@tesseract.js-data/${m[1]}/package.json`));
    const gz = path.join(pkg, '4.0.0_best_int', `${m[1]}.traineddata.gz`);
    if (fs.existsSync(gz)) return gz;
  } catch {
    /* not installed: fall through to the caller's path, which fails with ENOENT */
  }
  return p;
}

worker.setAdapter({
  getCore,
  gunzip,
  fetch: noFetch,
  ...cache,
  readCache: (p, ...rest) => cache.readCache(resolveLangFile(p), ...rest),
});
