import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../../../native/contract/api.js';
import { rankPlanned } from '../../../native/search/rank/planned.js';
import { RANKING_STEPS, stepOn } from '../../../native/search/settings.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const searchDir = path.join(here, '../../../native/search');

describe('RANKING_STEPS: the one list of steps that re-order passages', () => {
  it('names each step once, with a reason', () => {
    const names = RANKING_STEPS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of RANKING_STEPS) expect(s.reason.length).toBeGreaterThan(20);
  });

  it('every listed step runs where it says: in its stage’s list of steps, or read as a setting there (no listed step that nothing runs)', () => {
    for (const s of RANKING_STEPS) {
      const src = fs.readFileSync(path.join(searchDir, s.where), 'utf8');
      if (s.stage.endsWith('_STEPS')) {
        const list = new RegExp(`const ${s.stage}[^=]*= \\[([\\s\\S]*?)\\n\\];`).exec(src)?.[1] ?? new RegExp(`const ${s.stage}[^=]*= \\[(.*)\\];`).exec(src)?.[1];
        expect(list, `${s.stage} in ${s.where}`).toBeDefined();
        expect(list, `${s.name} in ${s.stage}`).toContain(`name: '${s.name}'`);
      } else {
        expect(src, `${s.name} in ${s.where}`).toContain(`on('${s.name}')`);
      }
    }
  });

  it('stepOn: every step runs unless switched off', () => {
    expect(stepOn(undefined, 'scope')).toBe(true);
    expect(stepOn({}, 'scope')).toBe(true);
    expect(stepOn({ off: ['scope'] }, 'scope')).toBe(false);
    expect(stepOn({ off: ['scope'] }, 'channel-tops')).toBe(true);
  });
});

describe('rankPlanned: the last steps of a retrieval, in order', () => {
  const hit = (id: string, kind: SearchHit['kind'] = 'passage'): SearchHit => ({ file: `${id}.md`, page: null, section: '', text: id, score: 1, kind, manual: 'M', lang: 'en', chunkId: id });
  const ids = (hs: SearchHit[]) => hs.map((h) => h.chunkId);
  const whole = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'].map((id) => hit(id));

  it('code hits lead; a one-part question keeps the whole list', () => {
    expect(ids(rankPlanned({ whole, parts: [], codeHits: [hit('c', 'code')], k: 4 }))).toEqual(['c', 'w1', 'w2', 'w3']);
  });

  it("a two-part question's part lists reach the first page; off, the whole list is kept", () => {
    const parts = [{ fused: [hit('p1'), hit('w1')], showsMessage: false }, { fused: [hit('q1')], showsMessage: false }];
    const on = ids(rankPlanned({ whole, parts, codeHits: [], k: 5 }));
    expect(on).toContain('p1');
    expect(on).toContain('q1');
    const off = ids(rankPlanned({ whole, parts, codeHits: [], k: 5 }, { off: ['interleave-parts'] }));
    expect(off).toEqual(['w1', 'w2', 'w3', 'w4', 'w5']);
  });

  it('a hub page is ranked a few places lower on the final list, where both channels ranking it had put it first; off, it keeps its place', () => {
    const hub = { ...hit('hub'), text: ['- [Mounting](mounting.md) - Physical installation', '- [Wiring](wiring.md) - Power cables', '- [Faults](faults.md) - Fault list'].join('\n') };
    expect(ids(rankPlanned({ whole: [hub, ...whole], parts: [], codeHits: [], k: 7 }))).toEqual(['w1', 'w2', 'w3', 'w4', 'w5', 'hub', 'w6']);
    expect(ids(rankPlanned({ whole: [hub, ...whole], parts: [], codeHits: [], k: 3 }, { off: ['sink-navigation'] }))).toEqual(['hub', 'w1', 'w2']);
  });

  it('the passage that shows a message the question writes leads the passages', () => {
    const parts = [{ fused: [hit('shown')], showsMessage: true }];
    expect(ids(rankPlanned({ whole, parts, codeHits: [], k: 3 }))[0]).toBe('shown');
    expect(ids(rankPlanned({ whole, parts, codeHits: [], k: 3 }, { off: ['shown-message-first', 'interleave-parts'] }))[0]).toBe('w1');
  });
});
