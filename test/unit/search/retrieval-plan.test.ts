/**
 * What a retrieval knows before it searches (plan/retrieval-plan.ts), tested without a library:
 * each source's code hits (typed as codes, tagged with their pack), the code's own table row left out
 * of the passages, the scope from the code's folder (switchable), and hits told apart by their kind,
 * never by their id.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CodeLookupResponse, CodeMatch, SearchHit } from '../../../native/contract/api.js';
import { planSources } from '../../../native/search/plan/retrieval-plan.js';
import type { RetrievalSource } from '../../../native/search/source.js';
import { DEFAULT_RETRIEVAL_SETTINGS } from '../../../native/search/settings.js';
import { record } from '../store/fixtures.js';

const match = (over: Partial<CodeMatch> = {}): CodeMatch => ({
  code: 'E12', key: 'E12', title: 'Door open', description: 'The door switch is open.', cause: 'Door not latched', remedy: 'Close the door',
  severity: null, scope: [], manual: 'Oven', file: 'oven/codes.md', page: null, section: 'Codes', text: '| E12 | Door open |', lang: 'en', ...over,
});

function source(pack: string | null, matches: CodeMatch[]): RetrievalSource {
  const res: CodeLookupResponse = { query: '', detected: ['E12'], matches, nearest: [], ms: 0 };
  return {
    pack,
    store: { getFiles: () => [record('oven/codes.md', { title: 'Oven' })] } as unknown as RetrievalSource['store'],
    codes: { lookup: () => res },
    embedder: null,
  };
}

const passage = (text: string, file = 'oven/codes.md'): SearchHit => ({ file, page: null, section: '', text, score: 1, kind: 'table-row', manual: 'Oven', lang: 'en', chunkId: text });

describe('planSources: codes and scope per source, before any search', () => {
  it("gives each source's code hits typed as codes, with their pack, and leaves the code's own row out of the passages", async () => {
    const { perSource, codeHits, codes } = await planSources([source(null, [match()]), source('pack-a', [match()])], 'E12 on the oven', 'en', undefined, DEFAULT_RETRIEVAL_SETTINGS);
    expect(codeHits.map((h) => [h.kind, h.pack])).toEqual([['code', undefined], ['code', 'pack-a']]);
    expect(codes.matches).toHaveLength(2);
    const own = perSource[0]!;
    expect(own.notCodeRow(passage('| E12 | Door open |'))).toBe(false);
    expect(own.notCodeRow(passage('| E13 | Fan stalled |'))).toBe(true);
    expect(own.notCodeRow(passage('| E12 | Door open |', 'other/codes.md'))).toBe(true);
    expect(own.related?.text).toContain('Close the door');
  });

  it("scopes a question that names a code to the code's folder; off, no scope", async () => {
    const on = await planSources([source(null, [match()])], 'E12', 'en', undefined, DEFAULT_RETRIEVAL_SETTINGS);
    expect(on.perSource[0]?.scope).toEqual({ names: [], files: [], prefixes: ['oven'] });
    const off = await planSources([source(null, [match()])], 'E12', 'en', undefined, { ...DEFAULT_RETRIEVAL_SETTINGS, off: ['scope'] });
    expect(off.perSource[0]?.scope).toBeNull();
  });
});

describe('hit identity', () => {
  it('no engine or script code tells a hit apart by slicing or prefix-matching its id (hits carry their kind)', () => {
    const root = path.join(path.dirname(new URL(import.meta.url).pathname), '../../..');
    const files = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    const parsing = /chunkId\s*\.\s*(?:startsWith|slice|split|substring|indexOf|match)\s*\(|\.startsWith\(\s*['"`]code:/;
    const offenders = [...files(path.join(root, 'native')), ...files(path.join(root, 'scripts'))].filter((f) => parsing.test(fs.readFileSync(f, 'utf8')));
    expect(offenders.map((f) => path.relative(root, f))).toEqual([]);
  });
});
