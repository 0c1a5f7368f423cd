/**
 * Samples apart (issue 14, item 4), keyboard only: the first real manuals added to the fictional
 * sample library go, with the default choice, into a new library of the technician's own (created by
 * openLibrary in the folder proposed next to the sample library); the header then shows that library
 * without the sample badge, the manuals are there and not in the samples, and the sample library opens
 * again from the list. Also: the sample schedule table in an answer keeps its header row.
 * Screenshots in test-results/screens/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { SCREENS, startBrowserMode, stop } from './env.js';

function filesIn(library: string): string[] {
  const json = JSON.parse(fs.readFileSync(path.join(library, 'files.json'), 'utf8')) as { files: { file: string }[] };
  return json.files.map((f) => f.file);
}

test('an answer quoting the sample maintenance schedule shows its table with the header row as the header', async ({ app }) => {
  test.skip(!app.methods.includes('ask'), 'ask is not on the engine in this build.');
  const { page } = app;
  await page.keyboard.type('how often should the chiller filter be replaced');
  await page.keyboard.press('Control+Enter');
  const answer = page.getByRole('article', { name: 'Answer' });
  await expect(answer).toBeVisible({ timeout: 60_000 });
  const table = answer.locator('.answer-text table.s-table').first();
  await expect(table.locator('thead th').first()).toHaveText('Interval');
  await expect(table.locator('thead')).toContainText('Section');
  await expect(table.locator('tbody tr').first()).toContainText('Every 1000 h');
  await expect(table.locator('tbody')).not.toContainText('Interval');
  await table.scrollIntoViewIfNeeded();
  await app.shot('answer-schedule-table');
});

/**
 * Browser mode on a home of its own, so its sample library holds nothing but the samples (app.spec.ts
 * adds manuals to the shared one, and the new-library choice is offered only before that).
 */
async function freshBrowserMode(browser: Browser): Promise<{ page: Page; library: string; close: () => Promise<void> }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-newlib-home-'));
  const server = await startBrowserMode(home);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(server.openUrl);
  await expect(page.locator('#search-input')).toBeFocused();
  return {
    page,
    library: path.join(home, 'sample-library'),
    close: async () => {
      await context.close();
      await stop(server.proc);
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

test('adding manuals to the sample library with the default choice creates a library of ones own, and the manuals land there', async ({ app, browser }, testInfo) => {
  test.skip(!app.methods.includes('openLibrary'), 'openLibrary is not on the engine in this build.');
  const fresh = app.kind === 'browser' ? await freshBrowserMode(browser) : null;
  const page = fresh?.page ?? app.page;
  const sampleLibrary = fresh?.library ?? app.library;
  const shot = (name: string) => page.screenshot({ path: path.join(SCREENS, `${testInfo.project.name}-${name}.png`) });
  try {
    const manuals = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-own-'));
    fs.writeFileSync(
      path.join(manuals, 'press-7-lubrication.md'),
      '# Press 7 lubrication\n\n## Daily\n\nGrease the slide gibs with two strokes of the hand pump at the start of each shift.\n',
    );
    // Browser mode: the proposed folder (next to the sample library, in this run's temp home). The
    // desktop app's library is a temp copy, so its proposal would be shared between runs: a fresh one.
    const expected = app.kind === 'browser' ? path.join(path.dirname(sampleLibrary), 'library') : path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-newlib-')), 'library');
    const samplesBefore = filesIn(sampleLibrary);

    await expect(page.locator('.app-header .sample-badge')).toHaveText('Fictional sample library');
    await page.locator('nav.tabs').getByRole('button', { name: 'Library' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#add-paths').focus();
    await page.keyboard.type(manuals);
    const own = page.getByRole('radio', { name: /A new library of my own/ });
    test.skip((await own.count()) === 0, 'The desktop app\'s sample library already holds real manuals (app.spec.ts added them); browser mode checks this on a fresh one.');
    await expect(own).toBeChecked();
    const folder = page.locator('#new-library-dir');
    if (app.kind === 'browser') await expect(folder).toHaveValue(expected);
    else {
      await folder.focus();
      await page.keyboard.press('Control+a');
      await page.keyboard.type(expected);
    }
    await shot('new-library-offer');

    await page.getByRole('button', { name: 'Create library and add' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('.notice[role="status"]')).toHaveText(`Created your new library in ${expected}.`);
    await expect(page.locator('.summary')).toContainText('1 file added or updated');
    await expect(page.locator('.library-summary')).toContainText('1 manual file');
    await expect(page.locator('.app-header .sample-badge')).toHaveCount(0);
    await expect(page.locator('table.manuals tbody tr')).toHaveCount(1);
    await expect(page.locator('table.manuals')).toContainText('Press 7 lubrication');
    await expect(page.locator('table.manuals .sample-badge')).toHaveCount(0);
    await expect(page.locator('.library-folder code').first()).toHaveText(expected);
    await expect(page.getByRole('radio', { name: /A new library of my own/ })).toHaveCount(0);
    await shot('new-library-created');
    await page.locator('#other-library-dir').scrollIntoViewIfNeeded();
    await shot('library-folder-section');

    // On disk: the manual is in the new library, the sample library is as it was.
    expect(filesIn(expected)).toEqual(['press-7-lubrication.md']);
    expect(filesIn(sampleLibrary)).toEqual(samplesBefore);
    expect(fs.existsSync(path.join(sampleLibrary, 'library.lock'))).toBe(false);

    // Search reads the new library only: its manual, none of the samples' codes.
    await page.keyboard.press('Control+k');
    await page.keyboard.type('grease the slide gibs');
    await expect(page.locator('.hit').first()).toContainText('slide gibs');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('E-107');
    await expect(page.locator('.code-card')).toHaveCount(0);

    // The next add says what it did; the note about creating the library is gone.
    await page.locator('nav.tabs').getByRole('button', { name: 'Library' }).focus();
    await page.keyboard.press('Enter');
    fs.writeFileSync(path.join(manuals, 'press-7-hydraulics.md'), '# Press 7 hydraulics\n\nCheck the oil level weekly.\n');
    await page.locator('#add-paths').fill(manuals);
    await page.getByRole('button', { name: 'Add to library' }).click();
    await expect(page.locator('.summary')).toContainText('1 file added or updated');
    await expect(page.getByText(/Created your new library/)).toHaveCount(0);

    // The sample library opens again from the list of libraries opened before.
    await page.locator('nav.tabs').getByRole('button', { name: 'Library' }).focus();
    await page.keyboard.press('Enter');
    const back = page.locator('.recent-libraries li', { hasText: sampleLibrary }).getByRole('button', { name: 'Open' });
    await back.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('.app-header .sample-badge')).toHaveText('Fictional sample library');
    await expect(page.locator('.notice[role="status"]')).toContainText(`Opened the library in ${sampleLibrary}`);
    await shot('library-folder-back-to-samples');
    await page.evaluate(() => localStorage.clear());
    fs.rmSync(manuals, { recursive: true, force: true });
  } finally {
    await fresh?.close();
  }
});
