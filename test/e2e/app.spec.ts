/**
 * The technician's flows, end to end, on the sample library (fictional Acme manuals). Each test waits
 * for what the user would see (selectors, performance entries), never for a fixed time.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, recordPerf, test } from './fixtures.js';
import { notLock, ROOT, startBrowserMode, stop } from './env.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test('starts to a usable search box within 2 s (browser mode, warm sample library)', async ({ app, browser }, testInfo) => {
  test.skip(app.kind !== 'browser', 'Start-up time is measured for browser mode.');
  // A second copy of the built sample library, so this start is measured on its own.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-start-'));
  fs.cpSync(path.join(process.env.MANUALDESK_E2E_HOME!, 'sample-library'), path.join(home, 'sample-library'), { recursive: true, filter: notLock });
  const server = await startBrowserMode(home);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    const gotoAt = performance.now();
    await page.goto(server.openUrl);
    await expect(page.locator('#search-input')).toBeFocused();
    await expect.poll(() => page.evaluate(() => performance.getEntriesByName('md:usable').length), { intervals: [20] }).toBe(1);
    // The page's own clock starts at navigation: spawn → goto (this process) + navigation → usable (the page).
    const pageMs = await page.evaluate(() => performance.getEntriesByName('md:usable')[0]!.startTime);
    const usableMs = gotoAt - server.startedAt + pageMs;
    const timing = {
      spawnToListenMs: Math.round(server.listenMs),
      pageLoadToUsableMs: Math.round(pageMs),
      spawnToUsableMs: Math.round(usableMs),
      targetMs: 2000,
      met: usableMs <= 2000,
    };
    recordPerf('start', timing);
    testInfo.annotations.push({ type: 'perf', description: JSON.stringify(timing) });
    console.log('start-up:', timing);
    // The target is 2 s (reported above). The assertion is a regression guard with room for a loaded CI host.
    expect(usableMs).toBeLessThanOrEqual(6000);
  } finally {
    await page.close();
    await stop(server.proc);
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('code lookup: a typed code shows its record at once, Enter opens its row in the manual', async ({ app }, testInfo) => {
  const { page } = app;
  const input = page.locator('#search-input');
  const codes = ['E-101', 'E-104', 'E-107', 'E-110', 'E-112'];
  const passagesShown = () => page.evaluate(() => performance.getEntriesByName('md:key-to-passages').length);
  for (const code of codes) {
    const before = await passagesShown();
    await input.fill('');
    await input.pressSequentially(code);
    await expect(page.locator('.code-card .code').first()).toHaveText(code);
    await expect.poll(passagesShown).toBeGreaterThan(before);
  }
  const card = page.locator('.code-card').first();
  await expect(card).toContainText('Cause:');
  await expect(card).toContainText('Remedy:');
  await expect(card).toContainText('Acme VMC-500 Fault Codes');
  await app.shot('code-lookup');

  const measures = await page.evaluate(() => performance.getEntriesByName('md:key-to-code').map((m) => m.duration));
  expect(measures.length).toBeGreaterThanOrEqual(codes.length);
  // The card does not wait for the passage search: for every code typed, the card was on screen first.
  const passagesAt = await page.evaluate(() => performance.getEntriesByName('md:key-to-passages').map((m) => m.startTime + m.duration));
  const cardsAt = await page.evaluate(() => performance.getEntriesByName('md:key-to-code').map((m) => m.startTime + m.duration));
  expect(cardsAt.slice(-codes.length).every((t, i) => t < passagesAt.slice(-codes.length)[i]!)).toBe(true);
  const medianMs = Math.round(median(measures) * 10) / 10;
  const timing = { samples: measures.map((m) => Math.round(m * 10) / 10), medianMs, maxMs: Math.round(Math.max(...measures) * 10) / 10, targetMs: 50, met: medianMs <= 50 };
  recordPerf(`keystroke-to-code:${app.kind}`, timing);
  testInfo.annotations.push({ type: 'perf', description: JSON.stringify(timing) });
  console.log('keystroke to code card:', timing);
  // The target is 50 ms (reported above; the engine's own lookup is measured by `npm run bench`). On a CI host
  // whose two cores are shared the median moved between 21 and 60 ms from run to run, so the assertion is a
  // regression guard with room: a card that waited for the passage search is caught by the order check above,
  // not by the clock.
  expect(medianMs).toBeLessThanOrEqual(250);

  await input.press('Enter');
  await expect(page.locator('.source-viewer')).toBeVisible();
  const cited = page.locator('.doc-block.is-cited').first();
  await expect(cited).toContainText('E-112');
  await expect(cited).toBeInViewport();
  await app.shot('code-source');
});

test('keyboard flow: type, Enter opens the top passage at its PDF page with the passage boxed, Esc back, Ctrl+K', async ({ app }) => {
  const { page } = app;
  await page.keyboard.type('condenser filter');
  await expect(page.locator('.hit').first()).toContainText('Cleaning the condenser filter');
  await expect(page.locator('.hit mark').first()).toBeVisible();
  await app.shot('search-passages');

  await page.keyboard.press('Enter');
  await expect(page.locator('.source-title')).toHaveText('Acme CH-20 Spindle Chiller Service Manual');
  await expect(page.locator('.pdf-frame')).toHaveAttribute('data-page', '2');
  await expect(page.locator('.pdf-highlight').first()).toBeVisible();
  expect(await page.locator('.pdf-highlight').count()).toBeGreaterThanOrEqual(3);
  await expect(page.locator('.pdf-page-label')).toHaveText('Page 2 of 3');
  await app.shot('source-pdf');

  await page.keyboard.press('Escape');
  await expect(page.locator('.source-viewer')).toHaveCount(0);
  await expect(page.locator('#search-input')).toBeFocused();
  await expect(page.locator('#search-input')).toHaveValue('condenser filter');
  await expect(page.locator('.hit').first()).toBeVisible();

  await page.getByRole('button', { name: 'History' }).click();
  await expect(page.getByRole('region', { name: 'History' })).toBeVisible();
  await expect(page.locator('table.history')).toContainText('Acme CH-20 Spindle Chiller Service Manual');
  await expect(page.locator('table.history')).toContainText('p. 2');
  const csv = decodeURIComponent((await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href'))!.split(',').slice(1).join(','));
  expect(csv.split('\r\n')[0]).toBe('at,action,query,manual,revision,file,page,section');
  expect(csv).toContain('open,,Acme CH-20 Spindle Chiller Service Manual,B,acme-ch-20-chiller.pdf,2,');
  await app.shot('history');

  await page.keyboard.press(process.platform === 'darwin' ? 'Meta+k' : 'Control+k');
  await expect(page.locator('#search-input')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.locator('#search-input')).toHaveValue('');
});

test('question → answer with citations → the citation opens the source page with the passage highlighted', async ({ app }) => {
  test.skip(!app.methods.includes('ask'), 'ask is not on the engine in this build (AnswerMethods not landed); the Ask screen shows "not available".');
  const { page } = app;
  await page.keyboard.type('How often should I clean the condenser filter of the CH-20 chiller?');
  await page.keyboard.press('Control+Enter');
  const answer = page.getByRole('article', { name: 'Answer' });
  await expect(answer).toBeVisible({ timeout: 60_000 });
  await expect(answer.locator('[data-mode]')).toHaveText(/^(Code|Extractive|Generative)$/);
  await expect(answer.locator('.refusal')).toHaveCount(0);
  await expect(answer.locator('.citation').first()).toContainText('Acme CH-20');
  await app.shot('answer');
  await answer.locator('.answer-text .cite, .citation').first().click();
  await expect(page.locator('.source-viewer')).toBeVisible();
  await expect(page.locator('.pdf-highlight, .doc-block.is-cited').first()).toBeVisible();
  await app.shot('answer-citation-source');

  await page.keyboard.press('Escape');
  await expect(answer).toBeVisible();
  await answer.getByRole('button', { name: 'Useful' }).click();
  await expect(answer.getByRole('status').filter({ hasText: 'Saved on this computer' })).toBeVisible();
  const saved = await page.evaluate(() => JSON.parse(window.localStorage.getItem('manualdesk.feedback.v1') ?? '[]') as { verdict: string }[]);
  expect(saved[0]?.verdict).toBe('useful');
});

test('a question the manuals do not cover is refused clearly', async ({ app }) => {
  const { page } = app;
  if (!app.methods.includes('ask')) {
    // The seam: the Ask screen says the feature is missing and offers a search instead.
    await page.keyboard.type('What is the capital of Australia?');
    await page.keyboard.press('Control+Enter');
    await expect(page.locator('.unavailable')).toContainText('not available in this build');
    await app.shot('ask-unavailable');
    test.skip(true, 'ask is not on the engine in this build; checked the "not available" message instead.');
  }
  await page.keyboard.type('What is the capital of Australia?');
  await page.keyboard.press('Control+Enter');
  const refusal = page.locator('.refusal');
  await expect(refusal).toBeVisible({ timeout: 60_000 });
  await expect(refusal).toContainText('do not cover');
  await expect(page.locator('.answer-text')).toHaveCount(0);
  await app.shot('refusal');
});

test('add a folder: progress bar while reading, then the new manuals are searchable; cancel stops a re-read', async ({ app }) => {
  const { page } = app;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-add-'));
  try {
    for (let i = 1; i <= 24; i++) {
      fs.writeFileSync(
        path.join(folder, `press-${String(i).padStart(2, '0')}.md`),
        `# Acme PX-${i} Press\n\n## Daily checks\n\nCheck the ram guide oil on press PX-${i} before the first stroke of the shift.\n\n## Hydraulics\n\nThe accumulator of press PX-${i} holds 40 bar; release it with valve V${i} before work.\n`,
      );
    }
    fs.writeFileSync(path.join(folder, 'px-alarms.csv'), 'Code,Message,Cause,Remedy\nX-901,Light curtain interrupted,Something crossed the light curtain.,Clear the area and press RESET.\n');
    // A hand-edited file with one slip (a scalar with an indented child): read but for that line, and said so.
    // A numbered table under "Alarm codes": its card names the family (the same manuals may define error 31).
    fs.writeFileSync(path.join(folder, 'px-panel.md'), '# PX panel\n\n## Alarm codes\n\n| Code | Message | Remedy |\n|---|---|---|\n| 31 | Guard door open | Close the guard door. |\n| 32 | Air pressure low | Check the air supply. |\n');
    fs.writeFileSync(path.join(folder, 'px-interface.yaml'), 'errors:\n  - code: X-902\n    text: Hydraulic oil too hot.\nsettings:\n  pump: bool\n    doc: Enables the pump.\n');

    await page.getByRole('button', { name: 'Library' }).click();
    await page.locator('#add-paths').fill(folder);
    // The first real manuals into the fictional sample library: a library of their own is the default.
    await expect(page.getByRole('radio', { name: /A new library of my own/ })).toBeChecked();
    // (new-library.spec.ts follows that default; here the manuals go into the samples on purpose.)
    await expect(page.getByRole('button', { name: 'Create library and add' })).toBeVisible();
    await page.getByRole('radio', { name: /Into the sample library/ }).check();
    await page.getByRole('button', { name: 'Add to library' }).click();
    const bar = page.locator('.job progress');
    await expect(bar).toBeVisible();
    // Any file of the folder: on a loaded machine the label may first be seen at the last one (px-alarms.csv).
    await expect(page.locator('.job .progress-label')).toContainText(/(Reading|Saving|Indexing the meaning of) (press-\d\d\.md|px-alarms\.csv|px-panel\.md|px-interface\.yaml) \(\d+ of 27\)…/);
    await app.shot('library-progress');
    await expect(page.locator('.summary')).toContainText('27 files added or updated', { timeout: 60_000 });
    await expect(page.locator('.summary .status-warnings')).toContainText(
      'px-interface.yaml: Line 6 of this YAML file has a syntax error and was left out; the rest of the file was read.',
    );
    await expect(page.locator('table.manuals')).toContainText('Acme PX-7 Press');
    await expect(page.locator('tr[data-file="px-alarms.csv"]')).toContainText('Indexed');
    await app.shot('library');

    // Cancel: read everything again, with enough files that the run lasts (ingest commits in
    // batches, so 25 small files take a tenth of a second), and stop it while it runs.
    for (let i = 1; i <= 3000; i++) {
      fs.writeFileSync(path.join(folder, `bulk-${String(i).padStart(4, '0')}.md`), `# Bulk note ${i}\n\nTorque bolt Q${i} to spec.\n`);
    }
    await page.getByLabel('Read unchanged files again').check();
    await page.getByRole('button', { name: 'Add to library' }).click();
    await expect(page.locator('.job .progress-label')).toContainText(/(press-\d\d|bulk-\d{4})\.md/);
    await page.locator('.job').getByRole('button', { name: 'Cancel' }).click();
    await expect(page.locator('.error')).toContainText('Cancelled');
    await expect(page.getByRole('button', { name: 'Add to library' })).toBeEnabled();

    // Typed straight after Ctrl+K, without waiting: no key may be lost while the screen changes.
    await page.keyboard.press('Control+k');
    await page.keyboard.type('X-901');
    await expect(page.locator('#search-input')).toHaveValue('X-901');
    await expect(page.locator('.code-card .code').first()).toHaveText('X-901');
    await page.locator('#search-input').fill('X-902');
    await expect(page.locator('.code-card').first()).toContainText('Hydraulic oil too hot.');
    await page.locator('#search-input').fill('alarm 31');
    await expect(page.locator('.code-card .code').first()).toHaveText('Alarm 31');
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test('packs: verify shows signer and trust, import with progress, update, roll back', async ({ app }) => {
  test.skip(!app.methods.includes('importPack'), 'Packs are not on the engine in this build (PackMethods not in native/server/methods.ts yet).');
  const { page } = app;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-pack-'));
  try {
    // A publisher's signed pack, built with the CLI; the site trusts the publisher's key.
    const cli = (...args: string[]) => {
      const res = spawnSync(process.execPath, [path.join(ROOT, 'bin/manualdesk.js'), ...args], { cwd: ROOT, encoding: 'utf8' });
      if (res.status !== 0) throw new Error(`manualdesk ${args.join(' ')} failed:\n${res.stderr}`);
    };
    const manuals = path.join(work, 'manuals');
    fs.mkdirSync(manuals);
    const build = (version: string, extra: string) => {
      fs.writeFileSync(
        path.join(manuals, 'acme-bs-300-bandsaw.md'),
        `# Acme BS-300 Bandsaw\n\n## Blade tension\n\nTension the blade to 900 kg/cm² with the tensioning wheel before cutting. ${extra}\n`,
      );
      cli('pack', 'build', manuals, '--out', path.join(work, `bandsaw-${version}.mdpack`), '--key', path.join(work, 'keys', 'private.pem'), '--name', 'Acme BS-300 manuals', '--id', 'acme-bs-300', '--version', version, '--publisher', 'Acme Machine Tools (fictional)');
    };
    cli('keys', 'generate', '--out', path.join(work, 'keys'));
    cli('keys', 'trust', path.join(work, 'keys', 'public.pem'), '--library', app.library);
    build('1', '');
    build('2', 'Release the tension at the end of the shift.');

    await page.getByRole('button', { name: 'Packs' }).click();
    await page.locator('#pack-file').fill(path.join(work, 'bandsaw-1.mdpack'));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByText('The pack is intact.')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText('Signature: valid')).toBeVisible();
    await expect(page.getByText('(trusted here)')).toBeVisible();

    await page.getByRole('button', { name: 'Import' }).click();
    await expect(page.locator('.summary')).toContainText('Imported Acme BS-300 manuals 1', { timeout: 60_000 });
    const row = page.locator('.pack-list .pack').filter({ hasText: 'Acme BS-300 manuals' });
    await expect(row).toContainText('Trusted signer');
    await expect(row.getByRole('button', { name: /Roll back/ })).toBeDisabled();

    await page.locator('#pack-file').fill(path.join(work, 'bandsaw-2.mdpack'));
    await page.getByRole('button', { name: 'Update installed pack' }).click();
    await expect(page.locator('.summary')).toContainText('Updated Acme BS-300 manuals 2', { timeout: 60_000 });
    await expect(row).toContainText('version 2');
    await app.shot('packs');

    await page.keyboard.press('Control+k');
    await page.keyboard.type('bandsaw blade tension');
    await expect(page.locator('.hit').first()).toContainText('Acme BS-300 Bandsaw');
    // The pack filter keeps only that pack's manuals.
    await page.getByRole('combobox', { name: 'Pack' }).selectOption({ label: 'Acme BS-300 manuals 2' });
    await page.locator('#search-input').fill('tension');
    await expect(page.locator('.hit').first()).toContainText('Acme BS-300 Bandsaw');
    for (const text of await page.locator('.hit .hit-manual').allTextContents()) expect(text).toBe('Acme BS-300 Bandsaw');
    // A pack's hit opens the pack's own document (version 2's text) in the source viewer.
    await page.locator('.hit').first().click();
    await expect(page.locator('.source-title')).toHaveText('Acme BS-300 Bandsaw');
    await expect(page.locator('.source-viewer')).toContainText('Release the tension at the end of the shift.');
    await app.shot('source-pack');
    await page.keyboard.press('Escape');
    await expect(page.locator('.source-viewer')).toHaveCount(0);

    await page.getByRole('button', { name: 'Packs' }).click();
    await row.getByRole('button', { name: 'Roll back to 1' }).click();
    await expect(row).toContainText('version 1');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test('screens: packs, settings (themes, text size) and the source viewer of an HTML manual', async ({ app }) => {
  const { page } = app;
  await page.getByRole('button', { name: 'Packs' }).click();
  if (!app.methods.includes('listPacks')) await expect(page.locator('.unavailable')).toContainText('Packs are not available in this build');
  else await expect(page.getByRole('heading', { name: 'Installed packs' })).toBeVisible();
  await app.shot('packs-screen');

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByText('keywords and fault codes only')).toBeVisible();
  await page.getByLabel('Dark').check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await app.shot('settings-dark');
  await page.getByLabel('High contrast').check();
  await page.getByLabel('Larger').check();
  await expect(page.locator('html')).toHaveAttribute('data-text-size', 'larger');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'contrast');
  await page.keyboard.type('bag filter bleed screw');
  await page.keyboard.press('Enter');
  await expect(page.locator('.source-title')).toHaveText('Acme HP-70 High-Pressure Coolant Pump Help');
  await expect(page.locator('.doc-block.is-cited').first()).toBeInViewport();
  await expect(page.locator('.doc-block.is-cited mark').first()).toHaveText(/bag|filter|bleed|screw/i);
  await app.shot('source-html-contrast');
});
