/**
 * Parses every supported file under a folder and prints counts, blocks by kind, failures and time.
 * Usage: npx tsx scripts/parse-corpus.ts <folder> [--slowest N] [--verbose]
 */
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import { join, relative } from 'node:path';
import { toErrorData } from '../native/contract/index.js';
import { isSupportedFile, parseFile } from '../native/parse/index.js';

async function* walk(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const root = args.find((a) => !a.startsWith('--'));
  if (!root) {
    console.error('usage: npx tsx scripts/parse-corpus.ts <folder> [--slowest N] [--verbose]');
    process.exit(2);
  }
  const slowestArg = args.indexOf('--slowest');
  const slowestN = slowestArg >= 0 ? Number(args[slowestArg + 1] ?? 5) : 5;
  const verbose = args.includes('--verbose');

  const byKind = new Map<string, number>();
  const byFormat = new Map<string, { files: number; ms: number }>();
  const failures: { file: string; code: string; message: string }[] = [];
  const timings: { file: string; ms: number }[] = [];
  let files = 0;
  let blocks = 0;
  let warnings = 0;
  let skipped = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for await (const file of walk(root)) {
    if (!isSupportedFile(file)) {
      skipped++;
      continue;
    }
    files++;
    const rel = relative(root, file);
    const s = performance.now();
    try {
      const doc = await parseFile(file);
      const ms = performance.now() - s;
      timings.push({ file: rel, ms });
      const f = byFormat.get(doc.format) ?? { files: 0, ms: 0 };
      f.files++;
      f.ms += ms;
      byFormat.set(doc.format, f);
      blocks += doc.blocks.length;
      for (const b of doc.blocks) byKind.set(b.kind, (byKind.get(b.kind) ?? 0) + 1);
      warnings += doc.warnings.length;
      if (verbose || doc.format === 'pdf') {
        const pages = doc.pageCount !== undefined ? ` pages=${doc.pageCount} withoutText=[${(doc.pagesWithoutText ?? []).join(',')}]` : '';
        console.log(`  ${rel}: ${doc.format} blocks=${doc.blocks.length}${pages} ${ms.toFixed(0)} ms title=${JSON.stringify(doc.meta.title ?? null)}`);
        for (const w of doc.warnings) console.log(`    warning: ${w}`);
      }
    } catch (err) {
      const e = toErrorData(err);
      failures.push({ file: rel, code: e.code, message: e.message });
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(`files parsed: ${files} (failed ${failures.length}; ${skipped} other files skipped)`);
  console.log(`blocks: ${blocks}`);
  for (const [k, n] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(12)} ${n}`);
  console.log('by format:');
  for (const [k, v] of [...byFormat].sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(`  ${k.padEnd(12)} ${String(v.files).padStart(4)} files ${(v.ms / 1000).toFixed(2)} s`);
  }
  console.log(`slowest ${slowestN}:`);
  for (const t of timings.sort((a, b) => b.ms - a.ms).slice(0, slowestN)) console.log(`  ${t.ms.toFixed(0).padStart(6)} ms  ${t.file}`);
  console.log(`warnings: ${warnings}`);
  console.log(`failures: ${failures.length}`);
  for (const f of failures) console.log(`  ${f.file}: ${f.code}: ${f.message}`);
  const cpu = process.cpuUsage(cpu0);
  console.log(`seconds: ${seconds.toFixed(2)} (cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; load average ${os.loadavg()[0]?.toFixed(1)})`);
}

await main();
