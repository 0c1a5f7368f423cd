/**
 * One `app` fixture for both projects: `page` is the ManualDesk window (browser mode in Chromium, or
 * the Electron app's first window) and `methods` the engine methods this build has, so a spec can skip
 * with a reason when a feature has not landed yet.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test as base, _electron, expect, type ElectronApplication, type Page } from '@playwright/test';
import { findElectron, notLock, recordPerf, ROOT, SCREENS, startBrowserMode, stop, type StartedServer } from './env.js';

export interface AppFixture {
  page: Page;
  methods: string[];
  kind: 'browser' | 'electron';
  /** The library folder the app has open. */
  library: string;
  /** Saves test-results/screens/<project>-<name>.png. */
  shot(name: string): Promise<string>;
}

interface WorkerFixtures {
  server: StartedServer | null;
  desktop: { app: ElectronApplication; library: string } | null;
}

export const test = base.extend<{ app: AppFixture }, WorkerFixtures>({
  server: [
    // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies by destructuring
    async ({}, use, workerInfo) => {
      if (workerInfo.project.name !== 'browser') return use(null);
      const home = process.env.MANUALDESK_E2E_HOME;
      if (!home) throw new Error('global-setup did not prepare MANUALDESK_E2E_HOME');
      const server = await startBrowserMode(home);
      await use(server);
      await stop(server.proc);
    },
    { scope: 'worker' },
  ],

  desktop: [
    // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies by destructuring
    async ({}, use, workerInfo) => {
      if (workerInfo.project.name !== 'electron') return use(null);
      const executablePath = findElectron();
      if (!executablePath) return use(null);
      const home = process.env.MANUALDESK_E2E_HOME!;
      const library = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-electron-'));
      fs.cpSync(path.join(home, 'sample-library'), library, { recursive: true, filter: notLock });
      const app = await _electron.launch({
        executablePath,
        args: [ROOT, '--no-sandbox', '--disable-gpu'],
        env: { ...process.env, MANUALDESK_LIBRARY: library } as Record<string, string>,
      });
      await use({ app, library });
      await app.close();
      fs.rmSync(library, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],

  app: async ({ server, desktop, browser }, use, testInfo) => {
    let page: Page;
    let methods: string[];
    let close = async () => {};
    if (testInfo.project.name === 'electron') {
      test.skip(
        !desktop,
        'No Electron binary on this machine (set ELECTRON_OVERRIDE_DIST_PATH or install node_modules/electron/dist); the same specs ran in browser mode.',
      );
      page = await desktop!.app.firstWindow();
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.evaluate(() => window.localStorage.clear());
      await page.reload();
      methods = await page.evaluate(() => Object.keys((window as unknown as { manualdesk?: object }).manualdesk ?? {}));
    } else {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      await page.goto(server!.openUrl);
      methods = (await (await fetch(`${server!.url}/api/methods`, { headers: server!.authHeaders })).json()).value as string[];
      close = () => context.close();
    }
    await expect(page.locator('#search-input')).toBeFocused();
    await use({
      page,
      methods,
      library: desktop ? desktop.library : path.join(process.env.MANUALDESK_E2E_HOME!, 'sample-library'),
      kind: testInfo.project.name === 'electron' ? 'electron' : 'browser',
      shot: async (name) => {
        const file = path.join(SCREENS, `${testInfo.project.name}-${name}.png`);
        await page.screenshot({ path: file });
        return file;
      },
    });
    await close();
  },
});

export { expect, recordPerf };
