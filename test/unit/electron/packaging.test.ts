/** electron-builder.yml keeps its promises: native modules unpacked, models out, other platforms pruned. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const text = fs.readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8');
const config = YAML.parse(text) as {
  files: string[];
  asarUnpack: string[];
  extraResources: { from: string; to: string }[];
  electronVersion: string;
  linux: { files: string[]; target: string[] };
  win: { files: string[]; target: string[] };
  mac: { files: string[]; target: string[] };
};
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; main: string };

describe('electron-builder.yml', () => {
  it('builds the Electron version the app is developed with, and documents offline electronDist', () => {
    expect(config.electronVersion).toBe(pkg.devDependencies.electron);
    expect(text).toMatch(/--config\.electronDist=/);
    expect(pkg.main).toBe('out/main/index.js');
  });

  it('ships the built app, including the engine utility process and the files it opens beside itself', () => {
    expect(config.files).toContain('out/**');
    expect(fs.readFileSync(path.join(ROOT, 'electron.vite.config.ts'), 'utf8')).toContain("fileName: 'worker-entry.cjs'");
    expect(fs.readFileSync(path.join(ROOT, 'electron.vite.config.ts'), 'utf8')).toContain("worker: resolve(import.meta.dirname, 'native/worker/entry.ts')");
  });

  it('unpacks every native module from asar', () => {
    for (const dep of ['@lancedb', '@node-rs', 'onnxruntime-node', 'node-llama-cpp', '@node-llama-cpp']) {
      expect(config.asarUnpack).toContain(`**/node_modules/${dep}/**`);
    }
    expect(config.asarUnpack).toContain('**/*.node');
  });

  it('keeps model weights out and ships only the manifest', () => {
    expect(config.files).toContain('!models/**');
    // …except the manifest, which the bundled engine reads from app.asar/models/manifest.json.
    expect(config.files.indexOf('models/manifest.json')).toBeGreaterThan(config.files.indexOf('!models/**'));
    expect(config.files.some((f) => f.includes('gguf') && f.includes('onnx') && f.startsWith('!'))).toBe(true);
    expect(config.extraResources).toContainEqual({ from: 'models/manifest.json', to: 'models/manifest.json' });
  });

  it('bundles models/local beside the app when the build machine has it, and builds without it (CI)', async () => {
    // electron-builder's own copier for extraResources, run on a scratch project with and without models/local.
    // @ts-expect-error: app-builder-lib's internals ship without type declarations for deep imports.
    const { getFileMatchers, copyFiles } = (await import('app-builder-lib/out/fileMatcher.js')) as {
      getFileMatchers: (config: unknown, name: string, dest: string, opts: unknown) => unknown[] | null;
      copyFiles: (matchers: unknown[] | null, transformer: null, hardLink: boolean) => Promise<unknown>;
    };
    const listFiles = (dir: string, rel = ''): string[] =>
      fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
        const r = rel ? `${rel}/${e.name}` : e.name;
        return e.isDirectory() ? listFiles(dir, r) : [r];
      }).sort();
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'md-eb-'));
    try {
      for (const withModels of [false, true]) {
        const project = path.join(scratch, withModels ? 'with' : 'without');
        const write = (rel: string, text = 'x') => {
          fs.mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
          fs.writeFileSync(path.join(project, rel), text);
        };
        write('models/manifest.json', '{}');
        write('samples/library/a.md', '# A');
        if (withModels) {
          for (const f of ['tiny.gguf', 'tiny-embed/config.json', 'tiny-embed/onnx/model.onnx', 'tiny.gguf.part', '.staging/x/partial.bin']) write(`models/local/${f}`);
        }
        const resources = path.join(project, 'dist', 'resources');
        const matchers = getFileMatchers({ extraResources: config.extraResources }, 'extraResources', resources, {
          macroExpander: (s: string) => s,
          customBuildOptions: {},
          globalOutDir: path.join(project, 'dist'),
          defaultSrc: project,
        });
        await copyFiles(matchers, null, false);
        expect(fs.existsSync(path.join(resources, 'models', 'manifest.json'))).toBe(true);
        if (withModels) expect(listFiles(path.join(resources, 'models', 'local'))).toEqual(['tiny-embed/config.json', 'tiny-embed/onnx/model.onnx', 'tiny.gguf']);
        else expect(fs.existsSync(path.join(resources, 'models', 'local'))).toBe(false);
      }
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('prunes the other platforms’ native binaries on each platform', () => {
    const others = { linux: ['darwin', 'win32'], win: ['darwin', 'linux'], mac: ['linux', 'win32'] } as const;
    for (const [platform, foreign] of Object.entries(others)) {
      const files = config[platform as keyof typeof others].files.join('\n');
      for (const os of foreign) {
        expect(files).toContain(os);
      }
      expect(files).toMatch(/@node-llama-cpp/);
      expect(files).toMatch(/@lancedb\/lancedb-/);
      expect(files).toMatch(/onnxruntime-node\/bin/);
    }
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
  });
});
