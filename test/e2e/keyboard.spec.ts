/**
 * Issue 14, the way a technician uses it: keyboard only (no clicks), with a screenshot of each step
 * in test-results/screens/ (looked at by eye). ↑/↓ select a result, Enter opens it, Esc gives focus
 * back; the CSV and Markdown viewers show tables with their header; safety notices in four signal
 * colours with the referenced section one key away; a 5,000-character query is stopped in the box;
 * the PDF zooms; History re-runs a search; the code card stays above the fold at 1024×700, Larger text.
 */
import { test, expect } from './fixtures.js';

test('↑/↓ select a result, Enter opens it, Esc returns focus to the box with the selection kept', async ({ app }) => {
  const { page } = app;
  await page.keyboard.type('spindle warm-up temperature');
  await expect(page.locator('.hit').nth(1)).toBeVisible();
  await expect(page.locator('.hit-text').first()).not.toContainText('###');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const selected = page.locator('.hit.is-selected, .code-card.is-selected');
  await expect(selected).toHaveCount(1);
  await expect(page.locator('#search-input')).toBeFocused();
  const id = await page.locator('[aria-selected="true"]').getAttribute('id');
  expect(id).toBe('result-1');
  const chosenManual = (await page.locator('#result-1 .hit-manual').textContent())!;
  await app.shot('kbd-selection');

  await page.keyboard.press('Enter');
  await expect(page.locator('.source-title')).toHaveText(chosenManual);
  await page.keyboard.press('Escape');
  await expect(page.locator('.source-viewer')).toHaveCount(0);
  await expect(page.locator('#search-input')).toBeFocused();
  await expect(page.locator('#result-1')).toHaveAttribute('aria-selected', 'true');
});

test('the CSV and Markdown viewers show tables with their header row, never pipes or CSV lines', async ({ app }) => {
  const { page } = app;
  await page.keyboard.type('E-107');
  await expect(page.locator('.code-card .code').first()).toHaveText('E-107');
  await page.keyboard.press('Enter');
  const csvTable = page.locator('.doc table.doc-table').first();
  await expect(csvTable.locator('thead th').first()).toBeVisible();
  await expect(csvTable.locator('thead')).toContainText(/code/i);
  await expect(page.locator('.doc tr.is-cited')).toContainText('E-107');
  await expect(page.locator('.doc')).not.toContainText('E-107,');
  await app.shot('csv-viewer');
  await page.keyboard.press('Escape');

  await page.keyboard.press('Control+a');
  await page.keyboard.type('daily check way-lube coolant concentration interval');
  await expect(page.locator('.hit').first()).toBeVisible();
  // A Markdown table row in the results: labelled fields (Interval / Task / Section), no pipes.
  const tableHit = page.locator('.hit', { has: page.locator('.s-fields, .s-table') }).first();
  await expect(tableHit).toBeVisible();
  await expect(tableHit.locator('.hit-text')).not.toContainText('|');
  await expect(tableHit.locator('.hit-text dt').first()).toHaveText('Interval');
  await app.shot('table-passage');
  const index = await page.locator('.hit').evaluateAll((els) => els.findIndex((e) => e.querySelector('.s-fields, .s-table')));
  const codes = await page.locator('.code-card').count();
  for (let i = 0; i <= codes + index; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  const mdTable = page.locator('.doc table.doc-table').first();
  await expect(mdTable.locator('thead')).toContainText('Interval');
  await expect(mdTable).toContainText('Check way-lube oil level');
  await expect(page.locator('.doc')).not.toContainText('|----------');
  await app.shot('markdown-viewer-table');
});

test('safety notices: WARNING and CAUTION differ in colour, the referenced section opens with the keyboard', async ({ app }) => {
  test.skip(!app.methods.includes('ask'), 'ask is not on the engine in this build.');
  const { page } = app;
  await page.keyboard.type('how do I replace the chiller filter');
  await page.keyboard.press('Control+Enter');
  const answer = page.getByRole('article', { name: 'Answer' });
  await expect(answer).toBeVisible({ timeout: 60_000 });
  const boxes = answer.locator('.safety');
  await expect(boxes.first()).toBeVisible();
  await app.shot('safety-light');
  // Four signal colours, distinct in every theme: read them from the page itself.
  for (const theme of ['light', 'dark', 'contrast']) {
    const colours = await page.evaluate((t) => {
      document.documentElement.dataset.theme = t;
      const cs = getComputedStyle(document.documentElement);
      return ['danger', 'warning', 'caution', 'notice'].map((k) => cs.getPropertyValue(`--sig-${k}`).trim());
    }, theme);
    expect(new Set(colours).size, `${theme}: ${colours.join(' ')}`).toBe(4);
    if (theme === 'contrast') await app.shot('safety-contrast');
  }
  await page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
  const open = answer.getByRole('button', { name: /^Open section/ }).first();
  if ((await open.count()) > 0) {
    await open.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('.source-viewer')).toBeVisible();
    await expect(page.locator('.doc-block.is-cited, .pdf-highlight').first()).toBeVisible();
    await app.shot('safety-section-opened');
    await page.keyboard.press('Escape');
    await expect(open).toBeFocused();
  }
});

test('a 5,000-character query is stopped in the box with one plain sentence', async ({ app }) => {
  const { page } = app;
  const long = 'spindle '.repeat(625);
  await page.locator('#search-input').fill(long);
  await expect(page.locator('#search-limit')).toContainText('at most 2,000 characters');
  expect((await page.locator('#search-input').inputValue()).length).toBeLessThanOrEqual(2000);
  await expect(page.locator('.results')).not.toContainText('Invalid');
  await expect(page.locator('.hit').first()).toBeVisible();
  await app.shot('query-limit');
});

test('the PDF zooms with Ctrl +/−; History re-runs a search from the keyboard', async ({ app }) => {
  const { page } = app;
  await page.keyboard.type('condenser filter');
  await expect(page.locator('.hit').first()).toContainText('condenser filter');
  await page.keyboard.press('Enter');
  await expect(page.locator('.pdf-frame')).toHaveAttribute('data-page', '2');
  const before = await page.locator('.pdf-canvas-wrap canvas').evaluate((c) => c.getBoundingClientRect().width);
  await page.keyboard.press('Control+=');
  await expect(page.locator('.pdf-zoom-label')).toHaveText('125 %');
  await expect.poll(() => page.locator('.pdf-canvas-wrap canvas').evaluate((c) => c.getBoundingClientRect().width)).toBeGreaterThan(before * 1.2);
  await app.shot('pdf-zoom');
  await page.keyboard.press('Control+-');
  await expect(page.locator('.pdf-zoom-label')).toHaveText('100 %');
  await page.keyboard.press('Escape');
  // Past the pause after which a query left alone is recorded: the search Enter recorded is not listed twice.
  await page.waitForTimeout(1700);

  await page.locator('nav.tabs').getByRole('button', { name: 'History' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('table.history .history-rerun', { hasText: 'condenser filter' })).toHaveCount(1);
  const rerun = page.locator('table.history .history-rerun', { hasText: 'condenser filter' }).first();
  await rerun.focus();
  await app.shot('history-rerun');
  await page.keyboard.press('Enter');
  await expect(page.locator('#search-input')).toHaveValue('condenser filter');
  await expect(page.locator('.hit').first()).toBeVisible();
});

test('1024×700 with Larger text: filters fold and the code card stays above the fold; samples are labelled', async ({ app }) => {
  const { page } = app;
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.evaluate(() => localStorage.setItem('manualdesk.settings.v1', JSON.stringify({ theme: 'light', textSize: 'larger' })));
  await page.reload();
  await expect(page.locator('#search-input')).toBeFocused();
  await expect(page.locator('.app-header .sample-badge')).toHaveText('Fictional sample library');
  await expect(page.locator('details.filters-box')).not.toHaveAttribute('open', '');
  await page.keyboard.type('E-107');
  const card = page.locator('.code-card').first();
  await expect(card).toBeVisible();
  const box = (await card.boundingBox())!;
  expect(box.y + Math.min(box.height, 120)).toBeLessThanOrEqual(700);
  await app.shot('narrow-larger-code-card');

  // The library screen: a folder that does not exist is said plainly.
  await page.locator('nav.tabs').getByRole('button', { name: 'Library' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('table.manuals .sample-badge').first()).toHaveText('fictional sample');
  await page.locator('#add-paths').focus();
  await page.keyboard.type('/media/usb/no-such-folder');
  // The new-library choice is offered only while the sample library holds nothing but samples; the
  // add-folder test in app.spec.ts (same browser-mode library) may already have added real manuals.
  const ownChoice = page.getByRole('radio', { name: /A new library of my own/ });
  if ((await ownChoice.count()) > 0) {
    await ownChoice.focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByRole('radio', { name: /Into the sample library/ })).toBeChecked();
  }
  await page.getByRole('button', { name: 'Add to library' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('.summary')).toContainText('Nothing was added: /media/usb/no-such-folder does not exist');
  await expect(page.locator('.summary')).not.toContainText('0 files');
  await app.shot('library-missing-folder');
  await page.evaluate(() => localStorage.clear());
});
