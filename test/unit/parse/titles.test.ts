/**
 * Manual names a technician recognises: a document's title that names no manual (a contents heading,
 * a link's words, a placeholder) is not taken, and a README-like file is named with its product folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFile, resolveManualMeta } from '../../../native/parse/index.js';
import { isNoTitle, titleFromPath } from '../../../native/parse/titles.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'md-titles-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

describe('titles that name no manual', () => {
  it('are contents headings, link words and placeholders; real titles are kept', () => {
    for (const t of ['目录', '目 录', 'Contents', 'Table of Contents', 'Inhaltsverzeichnis', 'English version of the README -> please click here', '中文版请点击这里', '(anonymous)', 'Document1', 'Untitled document']) {
      expect(isNoTitle(t), t).toBe(true);
    }
    for (const t of ['Pump P4 Manual', 'moteus reference', '机械臂用户手册', 'Contents of the spare parts kit', 'Index finger guard replacement']) {
      expect(isNoTitle(t), t).toBe(false);
    }
  });

  it('a README whose only top heading is a link to its twin is named by its product folder', async () => {
    const file = write('moteus/README_zh.md', '# [English version of the README -> please click here](README.md)\n\n## 校准\n\n运行校准命令。\n');
    const doc = await parseFile(file);
    expect(doc.meta.title).toBeUndefined();
    expect(resolveManualMeta(doc, null, file).title).toBe('moteus README zh');
  });

  it('a README-like file name is qualified with the nearest folder that names a product', () => {
    expect(titleFromPath('/data/vendor-a/README.md')).toBe('vendor-a README');
    expect(titleFromPath('/data/klipper/docs/zh_CN/index.md')).toBe('klipper Index');
    expect(titleFromPath('/data/vendor-b/pump_manual-v2.pdf')).toBe('Pump manual v2');
  });

  it('a Markdown title that is a contents heading is dropped; one that names the manual is kept', async () => {
    expect((await parseFile(write('arm/toc.md', '# 目录\n\n1. 安装\n'))).meta.title).toBeUndefined();
    expect((await parseFile(write('arm/guide.md', '# Robot arm user guide\n\nText.\n'))).meta.title).toBe('Robot arm user guide');
  });
});
