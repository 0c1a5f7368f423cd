/**
 * Property test over generated libraries: for every code record a small generated library holds
 * (tables, enumerations, per-language alarm objects, prose code lines), `ask` with the code typed in
 * several ways a technician types it is answered, not refused, and cites that record. Runs the real
 * engine (ingest, code index, search, evidence gate) on files this test writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import { cleanupTemp, tempDir, value } from './helpers.js';
import { prng } from '../../scripts/prng.js';

const NOUNS = ['pump', 'spindle', 'valve', 'belt', 'heater', 'encoder', 'brake', 'fan', 'sensor', 'clamp', 'coolant', 'door'];
const STATES = ['overheated', 'stalled', 'blocked', 'disconnected', 'too slow', 'not ready', 'out of range', 'jammed'];
const IDS = ['OVER', 'UNDER', 'LOST', 'STUCK', 'SLOW', 'HIGH', 'LOW', 'OPEN'];

interface Case {
  file: string;
  typed: string[];
}

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)] as T;
}

function distinct(rnd: () => number, n: number, lo: number, hi: number): number[] {
  const out = new Set<number>();
  while (out.size < n) out.add(lo + Math.floor(rnd() * (hi - lo)));
  return [...out];
}

/** Writes one generated library under `dir`; returns every code with the forms to type it in. */
function generate(dir: string, seed: number): Case[] {
  const rnd = prng(seed);
  const cases: Case[] = [];
  const write = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  const meaning = (): string => `The ${pick(rnd, NOUNS)} is ${pick(rnd, STATES)}`;

  // 1. A CSV error table with zero-padded five-digit codes.
  const csv = distinct(rnd, 4, 1000, 9999).map((n) => `0${n}`);
  write('mill/error-codes.csv', `Error code,Message,Remedy\n${csv.map((c) => `${c},${meaning()},Check the ${pick(rnd, NOUNS)} wiring.`).join('\n')}\n`);
  for (const c of csv) cases.push({ file: 'mill/error-codes.csv', typed: [c, c.replace(/^0+/, ''), `err ${c.replace(/^0+/, '')}`, `error code ${c}`] });

  // 2. A Markdown alarm table with letter-dash codes, and OBD codes in another table.
  const letter = pick(rnd, ['C', 'H', 'L']);
  const lcodes = distinct(rnd, 3, 1, 9).map((n) => `${letter}-0${n}`);
  const obd = distinct(rnd, 3, 100, 999).map((n) => `P0${n}`);
  write(
    'chiller/manual.md',
    `# Chiller manual\n\n## Alarm codes\n\n| Code | Meaning | Remedy |\n|---|---|---|\n${lcodes.map((c) => `| ${c} | ${meaning()} | Clean the ${pick(rnd, NOUNS)}. |`).join('\n')}\n\n` +
      `## Diagnostic trouble codes\n\n| DTC | Description |\n|---|---|\n${obd.map((c) => `| ${c} | ${meaning()} |`).join('\n')}\n`,
  );
  for (const c of lcodes) cases.push({ file: 'chiller/manual.md', typed: [c, c.replace('-', '').toLowerCase(), `alarm ${c}`, `${c.replace('-', ' ')} after start`] });
  for (const c of obd) cases.push({ file: 'chiller/manual.md', typed: [c, c.toLowerCase().replace('p0', 'p'), `dtc ${c.slice(0, 2)} ${c.slice(2)}`, `code ${c.slice(0, 2)} ${c.slice(2)} lean`] });

  // 3. A firmware interface definition with an error type's flags map.
  const owner = pick(rnd, ['Axis', 'Motor', 'Encoder']);
  const ids = distinct(rnd, 3, 0, IDS.length).map((i) => `${pick(rnd, NOUNS).toUpperCase()}_${IDS[i]}`);
  const uniqueIds = [...new Set(ids)];
  write(
    'drive/interface.yaml',
    `name: Drive interface\nvaluetypes:\n  Drive.${owner}.Error:\n    flags:\n${uniqueIds.map((id) => `      ${id}:\n        brief: ${meaning()}.\n        doc: Check the ${pick(rnd, NOUNS)} connector.\n`).join('')}`,
  );
  for (const id of uniqueIds) {
    cases.push({ file: 'drive/interface.yaml', typed: [id, `ERROR_${id}`, `${owner.toUpperCase()}_ERROR_${id}`, id.toLowerCase().replace(/_/g, ' ')] });
  }

  // 4. A JSON alarm table with one object per language.
  const json = distinct(rnd, 3, 100, 999).map((n) => n * 10 + 1);
  write(
    'arm/alarmController.json',
    JSON.stringify(json.map((id) => ({ id, level: 1, en: { description: meaning(), cause: '', solution: 'Clear the alarm and enable again.' }, zh_CN: { description: '关节温度过高', cause: '', solution: '清除报警后重新使能' } }))),
  );
  for (const id of json) cases.push({ file: 'arm/alarmController.json', typed: [String(id), `alarm ${id}`, `alarm${id}`, `报警${id}`] });

  // 5. Prose code lines in a fault section ("N - name - text").
  const faults = distinct(rnd, 3, 30, 60);
  write('servo/registers.md', `# Servo registers\n\n### Fault code\n\nA fault code is set when the servo stops.\n\n${faults.map((n) => `* ${n} - *${pick(rnd, NOUNS)} fault* - ${meaning().toLowerCase()}`).join('\n')}\n`);
  for (const n of faults) cases.push({ file: 'servo/registers.md', typed: [`fault ${n}`, `flt ${n}`, `fault${n}`, `err ${n}`] });
  return cases;
}

describe('property: every generated code record is answered, as typed in several variants', () => {
  for (const seed of [7, 1234]) {
    describe(`library seed ${seed}`, () => {
      let engine: Engine;
      let cases: Case[] = [];
      beforeAll(async () => {
        const root = tempDir(`codes-${seed}`);
        const manuals = path.join(root, 'manuals');
        cases = generate(manuals, seed);
        engine = await createEngine({ libraryDir: path.join(root, 'lib'), create: true });
        value(await engine.ingest({ paths: [manuals] }));
      }, 120_000);
      afterAll(async () => {
        await engine?.close();
      });

      it('asks every code in every variant and gets an answer that cites its record', async () => {
        const failures: string[] = [];
        for (const c of cases) {
          for (const typed of c.typed) {
            const res = value(await engine.ask({ question: typed, prefer: 'extractive' }));
            const cited = res.citations.some((x) => x.file === c.file && x.kind === 'code');
            if (res.refused || !cited) failures.push(`${typed} → ${res.refused ? `refused: ${res.answer.slice(0, 100)}` : `cites ${res.citations.map((x) => x.file).join(', ')}`}`);
          }
        }
        expect(failures).toEqual([]);
        expect(cases.length).toBeGreaterThan(15);
      }, 120_000);

      it('a code asked with a machine model no manual mentions is answered, and the answer says so', async () => {
        const c = cases[0] as Case;
        const res = value(await engine.ask({ question: `${c.typed[0]} on our ZX9 what do i do`, prefer: 'extractive' }));
        expect(res.refused).toBe(false);
        expect(res.citations.some((x) => x.file === c.file && x.kind === 'code')).toBe(true);
        expect(res.answer.split('\n')[0]).toBe('The installed manuals do not mention "ZX9"; check that the manual cited below is the one for your machine.');
        // With a brand the library never mentions, it is another vendor's code: refused.
        expect(value(await engine.ask({ question: `Haas ZX9 ${c.typed[0]}`, prefer: 'extractive' })).refused).toBe(true);
      }, 60_000);
    });
  }
  afterAll(() => cleanupTemp());
});
