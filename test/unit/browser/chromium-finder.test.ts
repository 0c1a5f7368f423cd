/**
 * A fresh machine needs nothing but npm for the browser tests: with the system browser ruled out
 * (MANUALDESK_CHROMIUM=npm, as on a machine without /usr/bin/chromium), the finder unpacks the
 * Chromium shipped in @sparticuz/chromium and Playwright drives it headless: a page renders, keys
 * arrive, a screenshot is taken.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = `
import { chromium } from 'playwright-core';
import { findChromium } from './test/e2e/chromium.ts';
import { CHROMIUM_ARGS } from './playwright.config.ts';
const found = findChromium();
const browser = await chromium.launch({ executablePath: found.executablePath, env: found.env, args: CHROMIUM_ARGS, timeout: 60000 });
const page = await browser.newPage();
await page.setContent('<input id="q" autofocus><p id="out"></p><script>q.addEventListener("keydown", (e) => (out.textContent += e.key));</script>');
// autofocus is applied at the next rendering update, which may come after the first keys: focus it first.
await page.focus('#q');
await page.keyboard.type('E-107');
await page.keyboard.press('ArrowDown');
const text = await page.textContent('#out');
const png = await page.screenshot();
await browser.close();
console.log(JSON.stringify({ source: found.source, path: found.executablePath, text, png: png.length }));
`;

describe('the npm-shipped Chromium', () => {
  it('is found without a system browser and runs headless under Playwright', () => {
    const res = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      cwd: path.resolve(import.meta.dirname, '../../..'),
      env: { ...process.env, MANUALDESK_CHROMIUM: 'npm', CHROMIUM_PATH: '' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(res.status, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout.trim().split('\n').pop()!) as { source: string; path: string; text: string; png: number };
    expect(out.source).toBe('npm');
    expect(out.path).toContain(path.join('node_modules', '.cache', 'manualdesk-chromium'));
    expect(fs.existsSync(out.path)).toBe(true);
    expect(out.text).toBe('E-107ArrowDown');
    expect(out.png).toBeGreaterThan(1000);
  }, 150_000);
});
