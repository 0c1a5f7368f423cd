/** The answer check's question file, sample and pass rule (native/pipelines/answer-check.ts), without a model. */
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../native/contract/errors.js';
import {
  checkFigures,
  judgeAnswerCheck,
  parseCheckQuestions,
  selectCheckQuestions,
  stratifiedSample,
  type CheckQuestion,
  type CheckRow,
} from '../../../native/pipelines/answer-check.js';

const row = (over: Partial<CheckRow>): CheckRow => ({
  id: 'q',
  type: 'question',
  outcome: 'accepted',
  firstTokenMs: 100,
  tokens: 10,
  tokensPerS: 20,
  totalMs: 600,
  factsGenerated: 0,
  factsExtractive: 0,
  factsAsked: 0,
  answer: '',
  draft: '',
  ...over,
});

function parseError(text: string): string {
  try {
    parseCheckQuestions(text, 'q.jsonl');
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe('INVALID_INPUT');
    return (err as Error).message;
  }
  throw new Error('expected a parse error');
}

describe('question file', () => {
  it('takes the dev-set format as it is, and a file of bare questions', () => {
    const dev = parseCheckQuestions('{"id":"SY-3","type":"symptom","query":"Pump rattles","answer_facts":["cavitation"],"expect_file":"a.md"}\n');
    expect(dev).toEqual([{ id: 'SY-3', type: 'symptom', query: 'Pump rattles', answer_facts: ['cavitation'] }]);
    const bare = parseCheckQuestions('\uFEFF{"query":"How do I prime the pump?"}\r\n\r\n{"question":"Why does it rattle?"}\n');
    expect(bare).toEqual([
      { id: 'line 1', type: 'question', query: 'How do I prime the pump?' },
      { id: 'line 3', type: 'question', query: 'Why does it rattle?' },
    ]);
  });
  it('names the first bad line and what it should look like', () => {
    expect(parseError('{"query":"ok"}\n{"query": "broken\n')).toBe('q.jsonl, line 2: not valid JSON. Each line must be one question, e.g. {"query": "How do I reset the pump?"}.');
    expect(parseError('["a list"]')).toContain('line 1: expected an object');
    expect(parseError('{"query":"ok"}\n{"query":"  "}')).toContain('line 2: no question text');
    expect(parseError('{"query":"ok","answer_facts":"one string"}')).toContain('line 1: "answer_facts" must be a list');
    expect(parseError('\n \n')).toContain('q.jsonl holds no questions');
  });
});

describe('sample', () => {
  const qs: CheckQuestion[] = [
    ...Array.from({ length: 6 }, (_, i) => ({ id: `P-${i}`, type: 'procedure', query: `p${i}` })),
    ...Array.from({ length: 2 }, (_, i) => ({ id: `S-${i}`, type: 'symptom', query: `s${i}` })),
    ...Array.from({ length: 4 }, (_, i) => ({ id: `C-${i}`, type: 'code_exact', query: `c${i}` })),
  ];
  it('spreads over the types in proportion, at least one each', () => {
    const s = stratifiedSample(qs.slice(0, 8), 4);
    expect(s.map((q) => q.type)).toEqual(['procedure', 'procedure', 'procedure', 'symptom']);
    expect(stratifiedSample(qs, 100)).toHaveLength(12);
  });
  it('leaves out code-record questions unless asked for all types', () => {
    expect(selectCheckQuestions(qs, { sample: 100 }).some((q) => q.type === 'code_exact')).toBe(false);
    expect(selectCheckQuestions(qs, { sample: 100, allTypes: true })).toHaveLength(12);
  });
});

describe('pass rule', () => {
  it('passes with at least half accepted and no fewer facts than extractive', () => {
    const v = judgeAnswerCheck([
      row({ factsGenerated: 2, factsExtractive: 1, factsAsked: 2 }),
      row({ outcome: 'fell back', reason: 'The answer names "9 bar", which no passage holds' }),
      row({ outcome: 'not generated', firstTokenMs: null }),
    ]);
    expect(v).toMatchObject({ passed: true, factsCompared: true, questions: 3, generated: 2, accepted: 1, fellBack: 1, notGenerated: 1 });
    expect(v.summary).toBe('passed: 1 of 2 generated answers accepted, facts 2 vs extractive 1');
    expect(v.reasons).toEqual([{ reason: 'The answer names "…", which no passage holds', count: 1 }]);
  });
  it('fails when the accepted answers hold fewer facts, or fewer than half are accepted', () => {
    expect(judgeAnswerCheck([row({ factsGenerated: 1, factsExtractive: 2, factsAsked: 2 })]).passed).toBe(false);
    const v = judgeAnswerCheck([row({}), row({ outcome: 'fell back' }), row({ outcome: 'model refused' })]);
    expect(v.passed).toBe(false);
    expect(v.summary).toContain('1 of 3 generated answers accepted (at least half needed)');
  });
  it('questions without facts: acceptance alone decides, and the verdict says so', () => {
    const v = judgeAnswerCheck([row({}), row({ outcome: 'fell back' })]);
    expect(v).toMatchObject({ passed: true, factsCompared: false });
    expect(v.summary).toContain('answer facts not compared (the questions have none)');
    expect(checkFigures(v, 'site.jsonl')).toMatchObject({ rule: 'acceptance only (no answer facts)', questionSet: 'site.jsonl', accepted: 1, ttftP50Ms: 100 });
  });
  it('a model that wrote nothing fails', () => {
    const v = judgeAnswerCheck([row({ outcome: 'not generated', firstTokenMs: null, tokensPerS: null })]);
    expect(v.passed).toBe(false);
    expect(v.ttftP50Ms).toBeNull();
    expect(v.summary).toContain('the model wrote no answer to 1 question(s)');
  });
});
