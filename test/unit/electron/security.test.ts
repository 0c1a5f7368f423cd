import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, isAllowedUrl, isAppUrl, windowOptions } from '../../../electron/main/security.js';
import { CONTENT_SECURITY_POLICY } from '../../../native/server/csp.js';

const rendererDir = path.resolve('/opt/manualdesk/out/renderer');
const built = { rendererDir };
const dev = { rendererDir, devServerUrl: 'http://localhost:5173' };
const fileUrl = (p: string) => pathToFileURL(p).href;

describe('windowOptions', () => {
  it('turns on every renderer isolation setting', () => {
    const prefs = windowOptions('/app/preload/index.cjs').webPreferences;
    expect(prefs).toMatchObject({
      preload: '/app/preload/index.cjs',
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
    });
  });

  it('opens at a size that fits 1280x800', () => {
    const o = windowOptions('/p.cjs');
    expect(o.width).toBeLessThanOrEqual(1280);
    expect(o.height).toBeLessThanOrEqual(800);
    expect(o.show).toBe(false);
  });
});

describe('isAllowedUrl', () => {
  it('allows the built renderer files', () => {
    expect(isAllowedUrl(fileUrl(path.join(rendererDir, 'index.html')), built)).toBe(true);
    expect(isAllowedUrl(fileUrl(path.join(rendererDir, 'assets', 'index-abc.js')), built)).toBe(true);
    expect(isAllowedUrl('data:image/png;base64,AAAA', built)).toBe(true);
  });

  it('blocks the network and other files', () => {
    for (const url of [
      'https://example.com/',
      'http://127.0.0.1:8080/api',
      'ws://evil.example/',
      fileUrl('/etc/passwd'),
      fileUrl(path.join(rendererDir, '..', 'main', 'index.js')),
      fileUrl(`${rendererDir}-evil/index.html`),
      'not a url',
    ]) {
      expect(isAllowedUrl(url, built), url).toBe(false);
    }
  });

  it('allows the dev server (and its HMR socket) only in development', () => {
    expect(isAllowedUrl('http://localhost:5173/src/main.tsx', dev)).toBe(true);
    expect(isAllowedUrl('ws://localhost:5173/', dev)).toBe(true);
    expect(isAllowedUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isAllowedUrl('http://localhost:5173/src/main.tsx', built)).toBe(false);
  });
});

describe('isAppUrl', () => {
  it('accepts only the app page itself', () => {
    expect(isAppUrl(fileUrl(path.join(rendererDir, 'index.html')), built)).toBe(true);
    expect(isAppUrl(`${fileUrl(path.join(rendererDir, 'index.html'))}#/search`, built)).toBe(true);
    expect(isAppUrl(fileUrl(path.join(rendererDir, 'assets', 'evil.html')), built)).toBe(false);
    expect(isAppUrl('https://example.com/', built)).toBe(false);
    expect(isAppUrl('about:blank', built)).toBe(false);
    expect(isAppUrl('', built)).toBe(false);
  });

  it('accepts the dev server origin in development only', () => {
    expect(isAppUrl('http://localhost:5173/', dev)).toBe(true);
    expect(isAppUrl('http://localhost:5173/', built)).toBe(false);
    expect(isAppUrl('http://localhost.evil.example:5173/', dev)).toBe(false);
  });
});

describe('contentSecurityPolicy', () => {
  it('is the strict policy for the built app', () => {
    expect(contentSecurityPolicy(built)).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect(CONTENT_SECURITY_POLICY).toMatch(/script-src 'self';/);
  });

  it('relaxes scripts and websockets for the dev server only', () => {
    const csp = contentSecurityPolicy(dev);
    expect(csp).toContain("script-src 'self' 'unsafe-inline'");
    expect(csp).toContain('connect-src \'self\' ws://localhost:5173');
    expect(csp).toContain("object-src 'none'");
  });
});
