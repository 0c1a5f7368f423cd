/**
 * End-to-end tests of the UI: the "browser" project drives Chromium (the system's, or the build npm
 * installed from @sparticuz/chromium: see test/e2e/chromium.ts) against browser mode
 * (`npm start -- --browser` on a temp copy of the sample library); the "electron" project runs the same
 * specs against the real desktop app when an Electron binary is on this machine, and skips otherwise.
 * Screenshots and timings go to test-results/ (not committed).
 */
import { defineConfig } from '@playwright/test';
import { findChromium } from './test/e2e/chromium.js';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // Chromium otherwise sends the signature of the page's forms (the search box) to
  // content-autofill.googleapis.com and asks Google for the time (found by test/reliability/network-cut).
  '--disable-features=AutofillServerCommunication,NetworkTimeServiceQuerying',
];

const chromium = findChromium();

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/e2e',
  globalSetup: './test/e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: chromium.executablePath, env: chromium.env, args: CHROMIUM_ARGS },
  },
  projects: [
    { name: 'browser', use: { browserName: 'chromium' } },
    { name: 'electron', use: { browserName: 'chromium' } },
  ],
});
