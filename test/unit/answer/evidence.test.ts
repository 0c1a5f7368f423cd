import { describe, expect, it } from 'vitest';
import type { CodeLookupResponse } from '../../../native/contract/api.js';
import { collectEvidence, contentTerms, gate, questionNames } from '../../../native/answer/evidence.js';
import { hit } from './helpers.js';

const PASSAGES = [
  hit('## Hydraulic oil\nChange the hydraulic oil every 2000 operating hours. Use ISO VG 46 oil.', { section: 'Maintenance > Hydraulic oil' }),
  hit('Check the oil level in the sight glass daily before starting the pump.', { section: 'Maintenance > Daily checks' }),
  hit('The back gauge moves on two ball screws driven by servo motors.', { section: 'Back gauge' }),
];

const noCodes: CodeLookupResponse = { query: '', detected: [], matches: [], nearest: [], ms: 0 };

function decide(question: string, hits = PASSAGES, codes: CodeLookupResponse = noCodes) {
  const ev = collectEvidence({ question, hits, codes });
  return { ev, d: gate(ev, hits.length) };
}

const alarm1 = {
  code: 'AL-01',
  key: 'alarm:1',
  title: 'Pump motor overload',
  description: 'The pump motor drew too much current.',
  cause: 'Pump blocked',
  remedy: 'Reset the overload relay',
  severity: null,
  scope: ['HPB-200'],
  manual: 'HPB-200 Press Brake Manual',
  file: 'press/alarms.csv',
  page: null,
  section: '',
  text: 'AL-01,Pump motor overload',
};

describe('content terms and names', () => {
  it('drops stop words and generic question words, stems the rest', () => {
    expect(contentTerms('What does it mean when the hydraulic oil is changed?')).toEqual(['hydraul', 'oil', 'chang']);
  });
  it('finds capitalised names, acronyms and model numbers, not codes', () => {
    expect(questionNames('Haas VF-2 alarm 108 servo overload on the ABB robot')).toEqual(['haa', 'vf2', 'abb']);
  });
});

describe('gate', () => {
  it('answers when one passage covers the question', () => {
    const { d, ev } = decide('how often should I change the hydraulic oil');
    expect(d).toMatchObject({ answer: true, rule: 'covered' });
    expect(ev.bestIndex).toBe(0);
    expect(ev.bestCoverage).toBe(0.75); // "often" is in no passage
  });
  it('refuses a question about a machine the passages never mention', () => {
    const { d } = decide('Tesla hydraulic oil change interval');
    expect(d).toMatchObject({ answer: false, rule: 'unknown-name' });
    expect(d.reason).toContain('"Tesla"');
  });
  it('refuses when several of the question\'s words occur in no passage', () => {
    const { d, ev } = decide('recommended coolant concentration refractometer for oil');
    expect(ev.missing).toEqual(['recommend', 'coolant', 'concentr', 'refractomet']);
    expect(d).toMatchObject({ answer: false, rule: 'unknown-terms' });
  });
  it('refuses when the passages share too few words', () => {
    const { d } = decide('servo tuning gain oil', [PASSAGES[1]!, PASSAGES[2]!].map((h) => ({ ...h, text: h.text.replace(/oil|servo/g, 'x') })));
    expect(d.answer).toBe(false);
  });
  it('refuses with no passages at all', () => {
    expect(decide('hydraulic oil', []).d).toMatchObject({ answer: false, rule: 'no-passages' });
  });
  it('answers a defined code and refuses an undefined one (alarm 108 when only alarm 1 is defined)', () => {
    const defined = decide('alarm 1 pump', PASSAGES, { ...noCodes, detected: ['alarm:1'], matches: [alarm1] });
    expect(defined.d).toMatchObject({ answer: true, rule: 'code-defined' });
    const undefinedCode = decide('alarm 108 pump', PASSAGES, { ...noCodes, detected: ['alarm:108'], nearest: [{ code: 'alarm:1', title: 'x', manual: 'm' }] });
    expect(undefinedCode.d).toMatchObject({ answer: false, rule: 'code-undefined' });
    expect(undefinedCode.d.reason).toBe('No installed manual defines alarm 108.');
  });
  it('refuses a defined code when the question names another machine', () => {
    const { d } = decide('Haas alarm 1', PASSAGES, { ...noCodes, detected: ['alarm:1'], matches: [alarm1] });
    expect(d).toMatchObject({ answer: false, rule: 'code-other-scope' });
    expect(d.reason).toContain('"Haas"');
  });
  it('a code typed short ("f23" for fault 23) is the code, not a foreign name', () => {
    const f23 = { ...alarm1, code: 'F0023', key: 'fault:23', scope: [] };
    const { d } = decide('f23 pump tripped', PASSAGES, { ...noCodes, detected: ['fault:23'], matches: [f23] });
    expect(d).toMatchObject({ answer: true, rule: 'code-defined' });
  });
  it('a scope the code record names is not a foreign name', () => {
    const { d } = decide('HPB-200 alarm 1', PASSAGES, { ...noCodes, detected: ['alarm:1'], matches: [alarm1] });
    expect(d.answer).toBe(true);
  });
  it('counts agreement between keyword and vector lists', () => {
    const ev = collectEvidence({ question: 'oil', hits: PASSAGES, codes: null, keywordTop: ['a', 'b', 'c'], vectorTop: ['b', 'c', 'd', 'e'] });
    expect(ev.agreement).toBe(0.5);
  });
});
