/**
 * Ingest cost against file count (issue 15, finding 7): N one-line Markdown files ingested keyword-only
 * into a fresh library, each size in its own process so peak RSS is that size's alone.
 *
 *   tsx scripts/bench-many-files.ts --files 1000      one size, prints {"files","seconds","peakRssMb"}
 *   benchManyFiles({ small: 1000, large: 10000 })     both sizes and the ratio, as bench rows
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface ManyFilesResult {
  files: number;
  seconds: number;
  peakRssMb: number;
}

async function runOne(n: number): Promise<ManyFilesResult> {
  const { createEngine } = await import('../native/engine.js');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'md-bench-many-'));
  try {
    const src = path.join(root, 'src');
    fs.mkdirSync(src);
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(src, `page-${i}.md`), `Step ${i}: turn valve v${i} a quarter turn.\n`);
    const e = await createEngine({ libraryDir: path.join(root, 'lib'), embedder: { kind: 'none' }, create: true });
    try {
      const t0 = performance.now();
      const res = await e.ingest({ paths: [src] });
      if (!res.ok) throw new Error(res.error.message);
      return { files: res.value.files, seconds: (performance.now() - t0) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 };
    } finally {
      await e.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function inChild(n: number): ManyFilesResult {
  const self = fileURLToPath(import.meta.url);
  const out = spawnSync(process.execPath, ['--import', 'tsx', self, '--files', String(n)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (out.status !== 0) throw new Error(`bench-many-files ${n}: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}') as ManyFilesResult;
}

export function benchManyFiles(opts: { small: number; large: number }): { bench: string; value: number; unit: string; note?: string }[] {
  const a = inChild(opts.small);
  const b = inChild(opts.large);
  return [
    { bench: `ingest ${opts.small} one-line files`, value: a.seconds, unit: 's', note: `peak RSS ${Math.round(a.peakRssMb)} MB` },
    { bench: `ingest ${opts.large} one-line files`, value: b.seconds, unit: 's', note: `peak RSS ${Math.round(b.peakRssMb)} MB` },
    { bench: `ingest time ratio ${opts.large} / ${opts.small} files`, value: b.seconds / a.seconds, unit: '×', note: `linear: ${opts.large / opts.small}×, target ≤ 12×` },
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { files: { type: 'string', default: '1000' } } });
  console.log(JSON.stringify(await runOne(Number(values.files))));
}
