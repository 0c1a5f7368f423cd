import { describe, expect, it } from 'vitest';
import type { CodeLookupResponse, CodeMatch, SearchHit, SearchRequest, SearchResponse } from '../../../native/contract/api.js';
import { ask, MAX_PROMPT_TOKENS, type AnswerDeps, type AnswerGenerator } from '../../../native/pipelines/answer.js';
import { analyze } from '../../../native/text/analyze.js';
import { waitedText } from '../../../native/contract/messages.js';
import { hit, retrieverOf } from './helpers.js';

const LIBRARY: SearchHit[] = [
  hit(
    '## Replacing the pump filter\nWARNING: Switch off the main isolator and apply lockout before opening the tank.\n1. Remove the four cover screws.\n2. Pull the filter element straight up.\n3. Fit the new element.',
    { section: 'Maintenance > Pump filter', page: 12 },
  ),
  hit('Change the hydraulic oil every 2000 operating hours. Use ISO VG 46 oil.', { section: 'Maintenance > Hydraulic oil', page: 13 }),
  hit('The back gauge moves on two ball screws driven by servo motors.', { section: 'Back gauge', page: 20 }),
  hit('Relief valve: the relief valve opens at 210 bar. To raise the pressure, turn the adjusting screw clockwise.', { file: 'press/hydraulics.md', section: 'Hydraulics > Relief valve', page: 30 }),
  hit('The relief valve of the lift table opens at 150 bar; turn its adjusting screw to raise it.', { file: 'lift/manual.md', section: 'Lift > Relief valve', manual: 'Lift Table Manual' }),
];

const AL3: CodeMatch = {
  code: 'AL-03', key: 'al:3', title: 'Hydraulic pressure low', description: 'Pressure below 20 bar.', cause: 'Pump not running',
  remedy: 'Check the contactor and the relief valve.', severity: null, scope: ['HPB-200'], manual: 'HPB-200 Press Brake Manual',
  file: 'press/alarms.csv', page: null, section: '', text: 'AL-03,Hydraulic pressure low,…',
};

/** A small keyword retriever over LIBRARY (any shared token, ranked by count). */
function deps(generator?: AnswerGenerator | null): AnswerDeps {
  const { retrieve } = retrieverOf(
    async (req: SearchRequest): Promise<SearchResponse> => {
      const q = new Set(analyze(req.query));
      const scored = LIBRARY.filter((h) => h.file.startsWith(req.filters?.pathPrefix ?? '')).map((h) => ({ h, s: analyze(`${h.text} ${h.section}`).filter((t) => q.has(t)).length }))
        .filter((x) => x.s > 0)
        .sort((a, b) => b.s - a.s);
      return { query: req.query, hits: scored.map((x) => ({ ...x.h, score: x.s })), ms: 0, mode: 'keyword' };
    },
    async (text: string): Promise<CodeLookupResponse> => {
      const m = /\bal[- ]?0?(\d+)\b|\balarm (\d+)/i.exec(text);
      const n = m ? (m[1] ?? m[2]) : undefined;
      if (!n) return { query: text, detected: [], matches: [], nearest: [], ms: 0 };
      return { query: text, detected: [`al:${n}`], matches: n === '3' ? [AL3] : [], nearest: n === '3' ? [] : [{ code: 'AL-03', title: AL3.title, manual: AL3.manual }], ms: 0 };
    },
  );
  return { retrieve, generator: generator === undefined ? undefined : async () => generator };
}

/** A deterministic stand-in for the model, to drive the citation checks (the real model is tested in test/unit/llm). */
function scripted(text: string): AnswerGenerator & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    prompts,
    contextSize: 2048,
    countTokens: (s) => Math.ceil(s.length / 4),
    async generate(req) {
      prompts.push(req.user);
      for (const w of text.split(/(?<= )/)) req.onToken?.(w);
      return { text, aborted: false, firstTokenMs: 1, chunks: text.split(' ').length };
    },
  };
}

describe('ask', () => {
  it('extractive: the procedure, cited, with its warning first', async () => {
    const a = await ask(deps(), { question: 'how do I replace the pump filter' });
    expect(a.refused).toBe(false);
    expect(a.mode).toBe('extractive');
    expect(a.answer).toBe(
      [
        '## Replacing the pump filter [1]',
        'WARNING: Switch off the main isolator and apply lockout before opening the tank. [1]',
        '1. Remove the four cover screws. [1]',
        '2. Pull the filter element straight up. [1]',
        '3. Fit the new element. [1]',
      ].join('\n'),
    );
    expect(a.citations).toEqual([expect.objectContaining({ n: 1, page: 12, section: 'Maintenance > Pump filter', text: LIBRARY[0]!.text })]);
    expect(a.safety).toEqual([{ kind: 'WARNING', text: 'WARNING: Switch off the main isolator and apply lockout before opening the tank.', n: 1 }]);
  });

  it('code: answers from the fault-code record', async () => {
    const a = await ask(deps(), { question: 'AL-03' });
    expect(a.mode).toBe('code');
    expect(a.answer).toBe(
      'AL-03: Hydraulic pressure low\nPressure below 20 bar.\nCause: Pump not running\nRemedy: Check the contactor and the relief valve.\nApplies to: HPB-200 [1]',
    );
    expect(a.citations[0]).toMatchObject({ n: 1, file: 'press/alarms.csv' });
  });

  it('code: a question that asks more follows the remedy into the code\'s own documentation set', async () => {
    const a = await ask(deps(), { question: 'AL-03: which screw do I turn to raise it' });
    expect(a.mode).toBe('code');
    expect(a.answer.split('\n\n')).toEqual([
      'AL-03: Hydraulic pressure low\nPressure below 20 bar.\nCause: Pump not running\nRemedy: Check the contactor and the relief valve.\nApplies to: HPB-200 [1]',
      // The sentence is read from its paragraph's start (issue 41).
      'Relief valve: the relief valve opens at 210 bar. [2]\nTo raise the pressure, turn the adjusting screw clockwise. [2]',
    ]);
    expect(a.citations.map((c) => c.file)).toEqual(['press/alarms.csv', 'press/hydraulics.md']);
    // Only the meaning asked: the record alone.
    expect((await ask(deps(), { question: 'AL-03' })).citations).toHaveLength(1);
  });

  it('refuses an undefined code without calling the model, naming nearby codes and the closest sections', async () => {
    const gen = scripted('should not be called [1]');
    const a = await ask(deps(gen), { question: 'alarm 108 hydraulic pressure' });
    expect(a.refused).toBe(true);
    expect(gen.prompts).toHaveLength(0);
    expect(a.refusal?.reason).toBe('No installed manual defines al 108. Codes that are defined nearby: AL-03 (Hydraulic pressure low, HPB-200 Press Brake Manual).');
    expect(a.refusal?.closest[0]).toMatchObject({ section: 'Maintenance > Hydraulic oil', page: 13 });
    expect(a.citations).toEqual([]);
  });

  it('a refusal\'s closest sections say which installed pack they are in', async () => {
    const packHit = hit('Gearbox oil: change it every 5000 hours.', { file: 'gear/manual.md', section: 'Gearbox', pack: 'plant' });
    const only: AnswerDeps = retrieverOf(async (req) => ({ query: req.query, hits: [packHit], ms: 0, mode: 'keyword' }));
    const a = await ask(only, { question: 'Siemens spindle drive parameters' });
    expect(a.refused).toBe(true);
    expect(a.refusal?.closest).toEqual([{ manual: packHit.manual, file: 'gear/manual.md', section: 'Gearbox', page: null, pack: 'plant' }]);
  });

  it('refuses a question about something the library does not mention', async () => {
    const a = await ask(deps(), { question: 'Siemens spindle drive parameters' });
    expect(a).toMatchObject({ refused: true, mode: 'extractive' });
    expect(a.answer).toMatch(/^The installed manuals do not answer this\./);
  });

  it('rewrites a follow-up with the previous code before searching', async () => {
    const a = await ask(deps(), { question: 'and what should I check?', conversation: [{ question: 'AL-03 on the press', answer: '…' }] });
    expect(a.standaloneQuery).toBe('and what should I check? AL-03');
    expect(a.mode).toBe('code');
  });

  it('generative: invalid citations are removed and listed, valid ones kept', async () => {
    const gen = scripted('Change the oil every 2000 hours [1]. Use the right oil [9].');
    const tokens: string[] = [];
    const a = await ask(deps(gen), { question: 'how often do I change the hydraulic oil', prefer: 'generative' }, { onToken: (t) => tokens.push(t) });
    expect(a.mode).toBe('generative');
    expect(a.answer).toBe('Change the oil every 2000 hours [1]. Use the right oil.');
    expect(a.invalidCitations).toEqual([9]);
    expect(a.citations.map((c) => c.n)).toEqual([1]);
    expect(tokens.join('')).toBe('Change the oil every 2000 hours [1]. Use the right oil [9].');
    expect(gen.prompts[0]).toContain('Source [1] (HPB-200 Press Brake Manual | Section: Maintenance > Hydraulic oil | Page: 13):');
  });

  it('the time shown is the time waited: the model\'s time is in it, and given beside it', async () => {
    const gen = scripted('Change the oil every 2000 hours [1].');
    const slow: AnswerGenerator = { ...gen, generate: async (req) => { await new Promise((r) => setTimeout(r, 150)); return gen.generate(req); } };
    const a = await ask(deps(slow), { question: 'how often do I change the hydraulic oil', prefer: 'generative' });
    expect(a.mode).toBe('generative');
    expect(a.modelMs).toBeGreaterThanOrEqual(140);
    expect(a.ms).toBeGreaterThanOrEqual(a.modelMs ?? Infinity);
    const e = await ask(deps(), { question: 'how often do I change the hydraulic oil', prefer: 'extractive' });
    expect(e.modelMs).toBeUndefined();
    expect(waitedText({ ms: 27_140, modelMs: 26_900 })).toBe('27.1 s, of which the language model 26.9 s');
    expect(waitedText({ ms: 172.53 })).toBe('173 ms');
  });

  it('generative without any valid citation falls back to extractive', async () => {
    const a = await ask(deps(scripted('Probably every year.')), { question: 'how often do I change the hydraulic oil', prefer: 'generative' });
    expect(a.mode).toBe('extractive');
    expect(a.fallbackReason).toMatch(/cited none of the passages/);
    expect(a.answer).toContain('Change the hydraulic oil every 2000 operating hours. [1]');
  });

  it('the model\'s refusal sentence falls back to the extractive answer: the evidence gate found the passages on topic (issue 38)', async () => {
    const question = 'how often do I change the hydraulic oil';
    const extractive = await ask(deps(), { question, prefer: 'extractive' });
    const a = await ask(deps(scripted('The installed manuals do not answer this question.')), { question, prefer: 'generative' });
    expect(a).toMatchObject({ refused: false, mode: 'extractive', answer: extractive.answer });
    expect(a.fallbackReason).toMatch(/found no answer in passages the search judged on topic/);
  });

  it('the refusal sentence followed by a cited answer is an answer (a manual may contain the sentence)', async () => {
    const a = await ask(deps(scripted(`${'The installed manuals do not answer this question.'} Change the oil every 2000 hours [1].`)), { question: 'how often do I change the hydraulic oil', prefer: 'generative' });
    expect(a).toMatchObject({ refused: false, mode: 'generative' });
    expect(a.citations.map((c) => c.n)).toEqual([1]);
  });

  it('auto generates only with a model that passed the answer check', async () => {
    const gen = scripted('Change the hydraulic oil every 2000 operating hours [1].');
    const unchecked = await ask(deps(gen), { question: 'how often do I change the hydraulic oil' });
    expect(unchecked.mode).toBe('extractive');
    expect(unchecked.fallbackReason).toBeUndefined();
    expect(gen.prompts).toHaveLength(0);
    const failed = await ask({ ...deps(gen), generatorChecked: async () => false }, { question: 'how often do I change the hydraulic oil' });
    expect(failed.mode).toBe('extractive');
    const passed = await ask({ ...deps(gen), generatorChecked: async () => true }, { question: 'how often do I change the hydraulic oil' });
    expect(passed).toMatchObject({ mode: 'generative', answer: 'Change the hydraulic oil every 2000 operating hours [1].' });
  });

  it('a degenerate generated answer is replaced by the extractive one, with the reason', async () => {
    const question = 'how often do I change the hydraulic oil';
    const extractive = await ask(deps(), { question, prefer: 'extractive' });
    const cases: [string, RegExp][] = [
      ['The answer is: [1] The answer is: [2] The answer is: [1]', /no answer of its own/],
      ['Change the hydraulic oil every 5000 operating hours [1].', /"5000", which no cited passage contains/],
      ['Drain the coolant sump and replace the spindle bearings with lithium grease yearly [1].', /words the language model wrote appear in the passages it cites/],
    ];
    for (const [text, reason] of cases) {
      const tokens: string[] = [];
      const a = await ask(deps(scripted(text)), { question, prefer: 'generative' }, { onToken: (t) => tokens.push(t) });
      expect(tokens.join('')).toBe(text);
      expect(a).toMatchObject({ mode: 'extractive', refused: false, answer: extractive.answer, citations: extractive.citations });
      expect(a.fallbackReason).toMatch(reason);
      expect(a.fallbackReason).toMatch(/so the answer quotes the manuals instead\.$/);
    }
  });

  it('a loop is stopped while it streams, and the extractive answer is shown', async () => {
    const line = 'Change the hydraulic oil every 2000 operating hours [1].\n';
    let streamed = 0;
    const looping: AnswerGenerator = {
      contextSize: 2048,
      countTokens: (s) => Math.ceil(s.length / 4),
      async generate(req) {
        let text = '';
        for (let i = 0; i < 400 && !req.signal?.aborted; i++) {
          const chunk = line.split(' ')[i % 8] + (i % 8 === 7 ? '' : ' ');
          text += chunk;
          streamed++;
          req.onToken?.(chunk);
        }
        return { text, aborted: req.signal?.aborted === true, firstTokenMs: 1, chunks: streamed };
      },
    };
    const a = await ask(deps(looping), { question: 'how often do I change the hydraulic oil', prefer: 'generative' });
    expect(a.mode).toBe('extractive');
    expect(a.fallbackReason).toMatch(/repeated itself/);
    expect(streamed).toBeLessThan(64);
  });

  it('safety text stays with a generated answer that leaves out the passage holding it', async () => {
    const question = 'how do I replace the pump filter and change the hydraulic oil';
    const extractive = await ask(deps(), { question, prefer: 'extractive' });
    expect(extractive.safety.map((s) => s.kind)).toContain('WARNING');
    // The model cites only the oil passage (whatever its number in the prompt).
    const gen: AnswerGenerator = {
      contextSize: 2048,
      countTokens: (s) => Math.ceil(s.length / 4),
      async generate(req) {
        const n = /Source \[(\d+)\] \([^\n]*Hydraulic oil/.exec(req.user)?.[1];
        const text = `Change the hydraulic oil every 2000 operating hours [${n}].`;
        return { text, aborted: false, firstTokenMs: 1, chunks: 8 };
      },
    };
    const a = await ask(deps(gen), { question, prefer: 'generative' });
    expect(a.mode).toBe('generative');
    expect(a.safety).toEqual(extractive.safety.map((s) => expect.objectContaining({ kind: s.kind, text: s.text })));
    // Each notice points at a citation the answer lists, so the UI can open its passage.
    for (const s of a.safety) expect(a.citations.map((c) => c.n)).toContain(s.n);
  });

  it('the prompt stays within MAX_PROMPT_TOKENS, the quoted sentences first', async () => {
    const filler = Array.from({ length: 60 }, (_, i) => `The back gauge finger ${i} rests on the ground rail and moves with the beam.`).join(' ');
    const long = [
      hit(`${filler} Change the hydraulic oil every 2000 operating hours. ${filler}`, { section: 'Hydraulics', chunkId: 'long1' }),
      hit(`${filler} Hydraulic oil grade: ISO VG 46. ${filler}`, { section: 'Oil grade', chunkId: 'long2' }),
      hit(filler, { section: 'Back gauge', chunkId: 'long3' }),
    ];
    const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
    const gen = { ...scripted('Change the hydraulic oil every 2000 operating hours [1].'), contextSize: 32768, countTokens: words };
    let system = '';
    gen.generate = async (req) => {
      system = req.system;
      gen.prompts.push(req.user);
      return { text: 'Change the hydraulic oil every 2000 operating hours [1].', aborted: false, firstTokenMs: 1, chunks: 8 };
    };
    const { retrieve } = retrieverOf(async (req) => ({ query: req.query, hits: long, ms: 0, mode: 'keyword' }));
    const a = await ask({ retrieve, generator: async () => gen }, { question: 'how often do I change the hydraulic oil', prefer: 'generative' });
    expect(a.mode).toBe('generative');
    const user = gen.prompts[0] as string;
    expect(words(system) + words(user)).toBeLessThanOrEqual(MAX_PROMPT_TOKENS);
    // Source 1 is the quoted sentence, not the whole 1,500-word passage; the answer cites the full passage.
    expect(user).toMatch(/Source \[1\] \([^\n]*\n"""\nChange the hydraulic oil every 2000 operating hours\./);
    expect(a.citations[0]?.text).toBe(long[0]?.text);
  });

  it('prefer: extractive never touches the model; generative without a model says why', async () => {
    const gen = scripted('x [1]');
    expect((await ask(deps(gen), { question: 'how often do I change the hydraulic oil', prefer: 'extractive' })).mode).toBe('extractive');
    expect(gen.prompts).toHaveLength(0);
    const a = await ask(deps(null), { question: 'how often do I change the hydraulic oil', prefer: 'generative' });
    expect(a.fallbackReason).toMatch(/No language model is installed/);
  });

  it('rejects an empty question and honours an aborted signal', async () => {
    await expect(ask(deps(), { question: '  ' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const ac = new AbortController();
    ac.abort();
    await expect(ask(deps(), { question: 'hydraulic oil' }, { signal: ac.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

describe('ask with the library vocabulary', () => {
  /** The library's vocabulary over LIBRARY plus a spec sheet that names the press brake's model. */
  function withVocabulary(asked: string[][]): AnswerDeps {
    const texts = [...LIBRARY.map((h) => `${h.text} ${h.section}`), 'Specifications: PB-40 press brake, 40 t.'].map((t) => new Set(analyze(t)));
    return {
      ...deps(),
      async vocabulary(terms: string[]) {
        asked.push(terms);
        return new Map(terms.map((t) => [t, texts.filter((s) => s.has(t)).length]));
      },
    };
  }
  it('asks only about the words the top passages lack, and answers for a model name the library knows', async () => {
    const asked: string[][] = [];
    const r = await ask(withVocabulary(asked), { question: 'PB-40 hydraulic oil change interval', prefer: 'extractive' });
    expect(r.refused).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual(expect.arrayContaining(['pb40', 'interv']));
    expect(asked[0]).not.toContain('oil');
  });
  it('still refuses a machine the library has never heard of', async () => {
    const r = await ask(withVocabulary([]), { question: 'Haas hydraulic oil change interval', prefer: 'extractive' });
    expect(r.refused).toBe(true);
    expect(r.refusal?.reason).toContain('"Haas"');
  });
});

describe('ask retrieves once', () => {
  // ask makes one code lookup and one retrieve() call; inside it, a two-part question is also
  // searched once per part (at most 3, native/search/retriever.ts), without another code lookup.
  it('makes one code lookup and one retrieval for a question', async () => {
    const r = retrieverOf(async (req) => ({ query: req.query, hits: LIBRARY.slice(0, 2), ms: 0, mode: 'keyword' }));
    await ask({ retrieve: r.retrieve }, { question: 'how often do I change the hydraulic oil' });
    expect(r.calls).toEqual({ retrieve: 1, search: 1, lookup: 1 });
  });

  it('passes the cancel signal down to retrieval', async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const ac = new AbortController();
    await ask(
      {
        retrieve: async (req, signal) => {
          seen.push(signal);
          return { query: req.query, hits: [], mode: 'keyword', codes: { query: req.query, detected: [], matches: [], nearest: [], ms: 0 }, rankings: { keyword: [], vector: [] }, ms: 0 };
        },
      },
      { question: 'hydraulic oil' },
      { signal: ac.signal },
    );
    expect(seen).toEqual([ac.signal]);
  });
});
