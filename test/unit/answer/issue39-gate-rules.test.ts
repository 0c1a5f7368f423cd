/**
 * Issue 39, item 4: the gate's out-of-scope classes as rules of the one gate(), on invented passages.
 * - a code asked for a named product that only another product's manuals define → code-other-product,
 *   the other definition shown as theirs;
 * - a question sharing only generic words (measured by their spread over the library's documentation
 *   sets, not a word list) with passages that lack its own subject → generic-overlap;
 * - refusals about other equipment say which documentation sets the library covers.
 */
import { describe, expect, it } from 'vitest';
import type { CodeLookupResponse, CodeMatch } from '../../../native/contract/api.js';
import { coinedNames, collectEvidence, gate, genericSpread, machineWords, modelDesignations, questionNames, typedNames, type EvidenceInput } from '../../../native/answer/evidence.js';
import { analyze } from '../../../native/text/analyze.js';
import { hit } from './helpers.js';

const SETS = ['lathe', 'press', 'printer', 'robot'];

/** Passages of three sets that share the generic words of a task ("adjust", "pressure", "switch"). */
const GENERIC_PASSAGES = [
  hit('Adjust the pressure switch until the clamp pressure reads 6 bar.', { file: 'lathe/clamp.md', manual: 'Torvald lathe', section: 'Clamp' }),
  hit('To adjust the relief pressure, turn the switch knob clockwise.', { file: 'press/hydraulics.md', manual: 'Orvan press', section: 'Hydraulics' }),
  hit('The filament sensor switch needs no adjustment; replace it when the pressure arm is worn.', { file: 'printer/sensor.md', manual: 'Lumo printer', section: 'Sensor' }),
];

/** Spread of each term over the four sets: task words in all of them, one set's own words in one. */
function spreadOf(perSet: Record<string, number>): NonNullable<EvidenceInput['spread']> {
  const counts = new Map(Object.entries(perSet).flatMap(([w, n]) => analyze(w).map((t) => [t, n] as const)));
  return { of: (t) => counts.get(t) ?? 0, docSets: SETS };
}

const TASK_WORDS = { adjust: 4, pressure: 4, switch: 4, clamp: 1, relief: 1, filament: 1, abort: 3, robot: 1 };
/** The library's vocabulary: passages holding each word; 0 for a word no manual uses ("compressor", "air"). */
const LIBRARY = new Map(Object.keys(TASK_WORDS).flatMap((w) => analyze(w).map((t) => [t, 5] as const)));
const vocabulary = (t: string) => LIBRARY.get(t) ?? 0;
const noCodes: CodeLookupResponse = { query: '', detected: [], matches: [], nearest: [], ms: 0 };

function decide(question: string, spread?: EvidenceInput['spread'], hits = GENERIC_PASSAGES) {
  const ev = collectEvidence({ question, hits, codes: noCodes, spread, vocabulary });
  return { ev, d: gate(ev, hits.length) };
}

describe('generic words, measured from the library', () => {
  it('a term is generic in half the sets and at least three', () => {
    expect(genericSpread(2)).toBe(3);
    expect(genericSpread(4)).toBe(3);
    expect(genericSpread(9)).toBe(5);
  });

  it('refuses a task on equipment no manual mentions when passages share only generic words with it', () => {
    const { d, ev } = decide('how do I adjust the pressure switch on my compressor', spreadOf(TASK_WORDS));
    expect(ev.overlap.sort()).toEqual(analyze('adjust pressure switch').sort());
    expect(ev.generic).toEqual(expect.arrayContaining(ev.overlap));
    expect(ev.unknownSubject).toEqual(analyze('compressor'));
    expect(d).toMatchObject({ answer: false, rule: 'generic-overlap' });
    expect(d.reason).toContain('no manual mentions "compressor"');
    expect(d.reason).toContain('The installed manuals cover: lathe, press, printer, robot.');
  });

  it('answers when the passages share a word of one set with the question (its subject)', () => {
    const { d } = decide('how do I adjust the clamp pressure switch on my compressor', spreadOf(TASK_WORDS));
    expect(d.answer).toBe(true);
  });

  it('answers when every word the passages lack is one many sets use (what happened, not what it happened to)', () => {
    expect(decide('the pressure switch aborts when I adjust it', spreadOf(TASK_WORDS)).d.answer).toBe(true);
  });

  it('refuses when the word the passages lack is one only a set or two use (their equipment, not the passages\')', () => {
    // "boiler": one set's passing mention; "robot": one set's own word, but the passages are the lathe's, press's and printer's.
    const withBoiler = spreadOf({ ...TASK_WORDS, boiler: 1 });
    const boiler = (t: string) => (t === analyze('boiler')[0] ? 2 : vocabulary(t));
    const { d, ev } = (() => {
      const e = collectEvidence({ question: 'how do I adjust the pressure switch on the boiler', hits: GENERIC_PASSAGES, codes: noCodes, spread: withBoiler, vocabulary: boiler });
      return { ev: e, d: gate(e, GENERIC_PASSAGES.length) };
    })();
    expect(ev.unknownSubject).toEqual(analyze('boiler'));
    expect(d).toMatchObject({ answer: false, rule: 'generic-overlap' });
    expect(d.reason).toContain('none of them mentions "boiler"');
    expect(decide('how do I adjust the pressure switch on the robot', spreadOf(TASK_WORDS)).d.rule).toBe('generic-overlap');
    // Named as one of the library's products (the engine's scope), the robot is equipment it covers.
    const named = collectEvidence({ question: 'how do I adjust the pressure switch on the robot', hits: GENERIC_PASSAGES, codes: noCodes, spread: spreadOf(TASK_WORDS), vocabulary, products: ['robot'] });
    expect(gate(named, GENERIC_PASSAGES.length).answer).toBe(true);
  });

  it('answers when the one word the passages lack sits among five or more they hold (a detail of their subject, not the subject)', () => {
    // "overshoots": a word form only the press set uses; the passages hold every other word of the question.
    const words = { ...TASK_WORDS, clamp: 4, relief: 4, sensor: 4, overshoot: 1 };
    const q = 'adjust the clamp pressure switch when the relief sensor overshoots';
    expect(decide(q, spreadOf(words)).d.answer).toBe(true);
    expect(decide('adjust the pressure switch when it overshoots', spreadOf(words)).d.rule).toBe('generic-overlap');
  });

  it('answers when the question names one of the library\'s products (equipment it covers; the unknown word is the technician\'s own)', () => {
    const ev = collectEvidence({ question: 'the Kesta pressure switch feels floppy when I adjust it', hits: GENERIC_PASSAGES, codes: noCodes, spread: spreadOf(TASK_WORDS), vocabulary: (t) => (t === 'kesta' ? 3 : vocabulary(t)), products: ['Kesta'] });
    expect(ev.unknownSubject).toContain(analyze('floppy')[0]);
    expect(gate(ev, GENERIC_PASSAGES.length).answer).toBe(true);
    expect(gate({ ...ev, products: [] }, GENERIC_PASSAGES.length).rule).toBe('generic-overlap');
  });

  it('refuses when half the question or more is a subject the passages lack, whatever one-set word they share', () => {
    // "clamp": the lathe set's own word, held by a passage; "dust", "collector": words a set or two use
    // elsewhere, "hose" one no manual uses; none of them in the passages.
    const fewSets = { ...TASK_WORDS, dust: 1, collector: 2 };
    const known = (t: string) => (analyze('dust collector').includes(t) ? 2 : vocabulary(t));
    const ev = collectEvidence({ question: 'clamp on the dust collector hose', hits: GENERIC_PASSAGES, codes: noCodes, spread: spreadOf(fewSets), vocabulary: known });
    expect(ev.overlap).toEqual(analyze('clamp'));
    const d = gate(ev, GENERIC_PASSAGES.length);
    expect(d).toMatchObject({ answer: false, rule: 'generic-overlap' });
    // "clamp" is one set's own word, not one most manuals use: the reason does not call it generic.
    expect(d.reason).toContain('share "clamp" with the question');
    expect(d.reason).not.toContain('most of the manuals use');
    // Two words of five lacking: the passages' clamp pressure switch is still what it asks about.
    expect(decide('clamp pressure switch sticks on my compressor', spreadOf(TASK_WORDS)).d.answer).toBe(true);
  });

  it('weighs the lacking word against what the first passages hold, not against words only deeper passages hold', () => {
    // "fuse" and "board" stand only in the eighth and ninth passages: neither shared with the first ones nor lacking.
    const filler = [1, 2, 3, 4].map((i) => hit(`Torque table ${i}.`, { file: 'lathe/torque.md', manual: 'Torvald lathe' }));
    const deep = [hit('Spare fuse F2.', { file: 'press/spares.md', manual: 'Orvan press' }), hit('Relay board layout.', { file: 'printer/board.md', manual: 'Lumo printer' })];
    const hits = [...GENERIC_PASSAGES, ...filler, ...deep];
    const known = (t: string) => (analyze('fuse board').includes(t) ? 5 : vocabulary(t));
    const ev = collectEvidence({ question: 'adjust the pressure switch fuse board on my compressor', hits, codes: noCodes, spread: spreadOf(TASK_WORDS), vocabulary: known });
    expect(ev.unknownSubject).toEqual(analyze('compressor'));
    expect(gate(ev, hits.length)).toMatchObject({ answer: false, rule: 'generic-overlap' });
  });

  it('without the spread (not known) no word is generic', () => {
    expect(decide('how do I adjust the pressure switch on my compressor').d.answer).toBe(true);
  });
});

const alarm412: CodeMatch = {
  code: 'Alarm 412',
  key: 'alarm:412',
  title: 'Spindle overload',
  description: 'The spindle motor drew more than its rated current for 5 s.',
  cause: 'Blunt tool',
  remedy: 'Reduce the feed',
  severity: null,
  scope: ['Torvald lathe'],
  manual: 'Torvald lathe manual',
  file: 'lathe/alarms.md',
  page: null,
  section: 'Alarms',
  text: '| 412 | Spindle overload |',
};
const PRESS_PASSAGES = [hit('The Orvan press stops when the guard opens.', { file: 'press/safety.md', manual: 'Orvan press', section: 'Guards' })];
const codes412: CodeLookupResponse = { ...noCodes, detected: ['alarm:412'], matches: [alarm412] };

describe('a code the named product’s manuals do not define', () => {
  const scope = (folders: string[]) => ({ names: ['Orvan'], vocabulary: () => 0, folders });

  it('refuses, saying the product’s manuals do not define it and showing the other product’s definition as theirs', () => {
    const ev = collectEvidence({ question: 'Orvan alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: codes412, scope: scope(['press']) });
    expect(ev.otherDefinitions).toHaveLength(1);
    const d = gate(ev, PRESS_PASSAGES.length);
    expect(d).toMatchObject({ answer: false, rule: 'code-other-product' });
    expect(d.reason).toContain('The manuals of "Orvan" do not define');
    expect(d.reason).toContain('Torvald lathe manual (lathe/alarms.md) defines alarm 412 as "Spindle overload');
    expect(d.reason).toContain('not an answer for this one');
  });

  it('answers when the named product’s folder defines the code', () => {
    const ev = collectEvidence({ question: 'Torvald alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: codes412, scope: { ...scope(['lathe']), names: ['Torvald'] } });
    expect(ev.otherDefinitions).toEqual([]);
    expect(gate(ev, 1)).toMatchObject({ answer: true, rule: 'code-defined' });
  });

  it('refuses though the named product’s manuals mention the other product (a passing mention does not make its codes theirs)', () => {
    const mentions = { ...scope(['press']), vocabulary: (t: string) => (analyze('Torvald lathe alarms').includes(t) ? 3 : 0) };
    const ev = collectEvidence({ question: 'Orvan alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: codes412, scope: mentions });
    expect(ev.otherDefinitions).toHaveLength(1);
    expect(gate(ev, 1)).toMatchObject({ answer: false, rule: 'code-other-product' });
  });

  it('answers when the record names the asked product (its own alarm list kept in another folder)', () => {
    const forOrvan = { ...codes412, matches: [{ ...alarm412, manual: 'Alarm list for the Orvan press', scope: [] }] };
    const ev = collectEvidence({ question: 'Orvan alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: forOrvan, scope: scope(['press']) });
    expect(ev.otherDefinitions).toEqual([]);
    expect(gate(ev, 1)).toMatchObject({ answer: true, rule: 'code-defined' });
  });

  it('answers when the record shares a model designation with the named product’s manual titles (an alarm list kept beside them)', () => {
    const list = { ...codes412, matches: [{ ...alarm412, manual: 'Ov-7 alarms', scope: [], file: 'alarms/ov-7-alarms.csv' }] };
    const titled = { ...scope(['press']), titles: ['Orvan OV7 press operator manual', 'OV7'] };
    const ev = collectEvidence({ question: 'Orvan alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: list, scope: titled });
    expect(ev.otherDefinitions).toEqual([]);
    expect(gate(ev, 1)).toMatchObject({ answer: true, rule: 'code-defined' });
    const other = collectEvidence({ question: 'Orvan alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: list, scope: { ...titled, titles: ['Orvan OV9 press operator manual'] } });
    expect(gate(other, 1)).toMatchObject({ answer: false, rule: 'code-other-product' });
  });

  it('reads model designations as letters then digits, one separator at most', () => {
    expect(modelDesignations('Fictional HPB-200 press brake, SD40 drive, MK4S, hpb_200 alarms')).toEqual(['hpb200', 'sd40', 'mk4s', 'hpb200']);
    expect(modelDesignations('Alarm 9, 0x00f register, 3D printer, en_US')).toEqual([]);
  });

  it('tells a record whose title names no product by its folder (its documentation set)', () => {
    const untitled = { ...codes412, matches: [{ ...alarm412, manual: 'alarm list', scope: [] }] };
    const ev = collectEvidence({ question: 'Orvan alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: untitled, scope: scope(['press']) });
    expect(gate(ev, 1)).toMatchObject({ answer: false, rule: 'code-other-product' });
  });

  it('answers when the record names no product and has no folder (whose codes they are cannot be told)', () => {
    const anonymous = { ...codes412, matches: [{ ...alarm412, manual: 'alarm list', scope: [], file: 'alarms.md' }] };
    const ev = collectEvidence({ question: 'Orvan alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: anonymous, scope: scope(['press']) });
    expect(gate(ev, 1)).toMatchObject({ answer: true, rule: 'code-defined' });
  });

  it('answers a code asked with no product named', () => {
    const ev = collectEvidence({ question: 'alarm 412 what does it mean', hits: PRESS_PASSAGES, codes: codes412 });
    expect(gate(ev, 1)).toMatchObject({ answer: true, rule: 'code-defined' });
  });
});

describe('a brand or model the library has no manual for', () => {
  it('refuses and says which documentation sets the library covers', () => {
    const ev = collectEvidence({ question: 'Norvex arm joint 3 will not home', hits: GENERIC_PASSAGES, codes: noCodes, vocabulary: () => 0, spread: spreadOf(TASK_WORDS) });
    const d = gate(ev, GENERIC_PASSAGES.length);
    expect(d).toMatchObject({ answer: false, rule: 'unknown-name' });
    expect(d.reason).toContain('"Norvex"');
    expect(d.reason).toContain('The installed manuals cover: lathe, press, printer, robot.');
  });

  it('refuses a model of a product the library covers that its manuals never mention, listing that product\'s manuals', () => {
    const orvan = { names: ['Orvan'], vocabulary: () => 0, folders: ['press'], titles: ['Orvan OV7 press operator manual', 'OV7 alarm list', 'OV7 alarm list'] };
    const known = (t: string) => (t === 'ov9' ? 0 : 5);
    const ev = collectEvidence({ question: 'Orvan OV9 ram will not return', hits: PRESS_PASSAGES, codes: noCodes, vocabulary: known, scope: orvan, products: ['Orvan'], spread: spreadOf(TASK_WORDS) });
    const d = gate(ev, 1);
    expect(d).toMatchObject({ answer: false, rule: 'unknown-name' });
    expect(d.reason).toBe('The installed manuals do not mention "OV9". The installed manuals for "Orvan" are: Orvan OV7 press operator manual; OV7 alarm list.');
    // An unknown brand beside it is not that product's model: the library's sets are listed instead.
    const brand = collectEvidence({ question: 'Norvex OV9 ram will not return', hits: PRESS_PASSAGES, codes: noCodes, vocabulary: (t) => (t === 'norvex' ? 0 : known(t)), spread: spreadOf(TASK_WORDS) });
    expect(gate(brand, 1).reason).toContain('The installed manuals cover: lathe, press, printer, robot.');
  });

  it('with a code a manual defines, an unknown brand is refused with the same list', () => {
    const ev = collectEvidence({ question: 'Norvex alarm 412', hits: PRESS_PASSAGES, codes: codes412, vocabulary: () => 0, spread: spreadOf(TASK_WORDS) });
    const d = gate(ev, 1);
    expect(d).toMatchObject({ answer: false, rule: 'code-other-scope' });
    expect(d.reason).toMatch(/^Alarm 412 is defined only in manuals that do not mention "Norvex"/);
    expect(d.reason).toContain('The installed manuals cover: lathe, press, printer, robot.');
  });

  it('reads a brand or model typed in lower case before its model number, number or code as a name', () => {
    // "norvex", "velka": words no manual uses, standing where a machine's name stands.
    const coded = collectEvidence({ question: 'norvex px7 alarm 412', hits: PRESS_PASSAGES, codes: codes412, vocabulary: (t) => (t === 'alarm' ? 5 : 0) });
    expect(coded.names).toEqual(expect.arrayContaining(['norvex', 'px7']));
    expect(coded.ownModels).toEqual([]);
    expect(gate(coded, 1)).toMatchObject({ answer: false, rule: 'code-other-scope' });
    expect(gate(coded, 1).reason).toContain('"norvex"');
    const task = decide('the velka 3 pressure switch needs adjusting');
    expect(task.d).toMatchObject({ answer: false, rule: 'unknown-name' });
    expect(task.d.reason).toContain('"velka"');
  });

  it('keeps an unknown word a plain word away from a number, after the code, or with a stop word between', () => {
    expect(decide('floppy pressure switch when I adjust it').d.answer).toBe(true);
    const after = collectEvidence({ question: 'alarm 412 cyl 2 keeps coming back', hits: PRESS_PASSAGES, codes: codes412, vocabulary: (t) => (t === 'cyl' ? 0 : 5) });
    expect(after.names).not.toContain('cyl');
    expect(gate(after, 1)).toMatchObject({ answer: true, rule: 'code-defined' });
    const own = collectEvidence({ question: 'alarm 412 on our px7', hits: PRESS_PASSAGES, codes: codes412, vocabulary: (t) => (t === 'px7' ? 0 : 5) });
    expect(own.ownModels).toEqual(['px7']);
    expect(gate(own, 1).answer).toBe(true);
  });

  it('reads the head word of a Chinese compound no manual uses, before a code, as the machine (a kind of equipment the library lacks)', () => {
    // "等离子" (plasma) is a word the library uses; "切割机" (cutting machine) and the "割机" cut from its end are not.
    const cutter = (t: string) => (analyze('切割机').includes(t) && t !== '切割' ? 0 : 5);
    const ev = collectEvidence({ question: '等离子切割机 报警 412 怎么处理', hits: PRESS_PASSAGES, codes: codes412, vocabulary: cutter, spread: spreadOf(TASK_WORDS) });
    expect(ev.names).toContain('切割机');
    const d = gate(ev, 1);
    expect(d).toMatchObject({ answer: false, rule: 'code-other-scope' });
    expect(d.reason).toContain('"切割机"');
    expect(d.reason).toContain('The installed manuals cover: lathe, press, printer, robot.');
    // Without a code, a number stands where a model does: the same head word is a machine the library lacks.
    expect(decide('切割机 3 压力开关 怎么调').d).toMatchObject({ answer: false, rule: 'unknown-name' });
  });

  it('keeps a Chinese compound whose head word the library uses a plain word (a kind of machine it covers)', () => {
    // "车床" (lathe): the library's word; "数控车床" (CNC lathe) is a compound of it the manuals happen not to write.
    const lathe = (t: string) => (t === '数控' || t === '数控车床' ? 0 : 5);
    const ev = collectEvidence({ question: '数控车床 报警 412 怎么处理', hits: PRESS_PASSAGES, codes: codes412, vocabulary: lathe });
    expect(ev.names).toEqual([]);
    expect(gate(ev, 1)).toMatchObject({ answer: true, rule: 'code-defined' });
  });

  it('refuses a code asked for a machine, named in plain words, that the code\'s own manuals never mention', () => {
    // "plasma", "cutter": words the library uses (another set's), but not the lathe set that defines alarm 412.
    const inLatheSet = (t: string) => (analyze('spindle chuck feed').includes(t) ? 3 : 0);
    const ask = (question: string) => gate(collectEvidence({ question, hits: PRESS_PASSAGES, codes: codes412, vocabulary: () => 5, codeSetVocabulary: inLatheSet, spread: spreadOf(TASK_WORDS) }), 1);
    const d = ask('the plasma cutter alarm 412');
    expect(d).toMatchObject({ answer: false, rule: 'code-other-scope' });
    expect(d.reason).toMatch(/^Alarm 412 is defined only in manuals that do not mention "plasma", "cutter"|^Alarm 412 is defined only in manuals that do not mention "cutter", "plasma"/);
    expect(d.reason).toContain('The installed manuals cover: lathe, press, printer, robot.');
    // One of the words is the code's manuals' own: the machine may be theirs.
    expect(ask('plasma spindle alarm 412').answer).toBe(true);
    // Words after the code, or behind a stop word, are not the machine's name.
    expect(ask('alarm 412 on the plasma cutter').answer).toBe(true);
    expect(ask('spindle alarm 412').answer).toBe(true);
    // Without the code's sets' counts (not known) nothing changes.
    expect(gate(collectEvidence({ question: 'the plasma cutter alarm 412', hits: PRESS_PASSAGES, codes: codes412, vocabulary: () => 5 }), 1).answer).toBe(true);
    // A model number between the machine's name and the code is its model: the name before it is still the machine's.
    const modelled = ask('plasmacut 3 alarm 412');
    expect(modelled).toMatchObject({ answer: false, rule: 'code-other-scope' });
    expect(modelled.reason).toMatch(/^Alarm 412 is defined only in manuals that do not mention "plasmacut"/);
    expect(ask('plasma cutter PX-40 alarm 412').answer).toBe(false);
    expect(ask('spindle 3 alarm 412').answer).toBe(true);
  });

  it('refuses a code asked with a name the first passages hold when the documentation sets that define the code never use it', () => {
    // "Orvan": a press another set's manuals describe (the first passage names it); the lathe set that defines alarm 412 never does.
    const inLatheSet = (t: string) => (analyze('spindle chuck feed').includes(t) ? 3 : 0);
    const ask = (codeSetVocabulary?: (t: string) => number) => gate(collectEvidence({ question: 'alarm 412 on the Orvan', hits: PRESS_PASSAGES, codes: codes412, vocabulary: () => 5, codeSetVocabulary }), 1);
    const d = ask(inLatheSet);
    expect(d).toMatchObject({ answer: false, rule: 'code-other-scope' });
    expect(d.reason).toMatch(/^Alarm 412 is defined only in manuals that do not mention "Orvan"/);
    // The code's sets use the name: it may be their machine.
    expect(ask((t) => (t === 'orvan' ? 2 : inLatheSet(t))).answer).toBe(true);
    // Without those sets' counts (not known), a name the first passages hold fits, as before.
    expect(ask().answer).toBe(true);
  });

  it('does not take a common word for a name: a sentence\'s first word, or the word before a code, unless a model number follows it', () => {
    const vocab = (t: string) => (analyze('yesterday after threw ender').includes(t) ? 0 : 5);
    const ask = (question: string) => gate(collectEvidence({ question, hits: PRESS_PASSAGES, codes: codes412, vocabulary: vocab }), 1);
    // "Yesterday", "After": capitals because they start the question; "threw": the technician's verb.
    expect(ask('Yesterday the lathe threw alarm 412')).toMatchObject({ answer: true, rule: 'code-defined' });
    expect(ask('After the update I get alarm 412').answer).toBe(true);
    expect(questionNames('Yesterday the lathe threw alarm 412')).toEqual([]);
    expect(typedNames('the lathe threw alarm 412', (t) => vocab(t) === 0)).toEqual([]);
    // A brand that is also a common word, before its model number, is still a name, at the start or typed in lower case.
    expect(questionNames('Ender 3 alarm 412')).toEqual(analyze('ender'));
    expect(typedNames('the ender 5 alarm 412', (t) => vocab(t) === 0)).toEqual(analyze('ender'));
    expect(ask('the ender 5 shows alarm 412')).toMatchObject({ answer: false, rule: 'code-other-scope' });
    // A word with a capital in the dictionary (a brand as well as a unit) stays a name at the start.
    expect(questionNames('Tesla hydraulic oil change')).toEqual(analyze('tesla'));
  });

  it('takes a proper noun typed in lower case among the machine words of a code for a brand, and a day or a month for no name', () => {
    // "honeywell", "lincoln": the dictionary has them only with a capital; before a code they name the machine's maker.
    expect(questionNames('my honeywell alarm 1')).toEqual(analyze('honeywell'));
    expect(questionNames('the lincoln spindle alarm 412')).toEqual(analyze('lincoln'));
    // Elsewhere a lower-case word stays the technician's (a unit, a tool: "fahrenheit", "allen key").
    expect(questionNames('the temperature reads in fahrenheit')).toEqual([]);
    expect(questionNames('tighten it with an allen key, then alarm 412')).toEqual([]);
    // Days and months are capitalised proper nouns, but they say when.
    expect(questionNames('every Monday the lathe stops')).toEqual([]);
    expect(questionNames('Since July the Haas lathe stops')).toEqual(analyze('haas'));
  });

  it('reads the machine words before the first code, back to a stop word, a generic word, a quantity or another script, past model numbers', () => {
    expect(machineWords('the plasma cutter alarm 5').sort()).toEqual(analyze('plasma cutter').sort());
    expect(machineWords('check engine light p0301')).toEqual(analyze('light engine'));
    expect(machineWords('alarm 412 on our px7')).toEqual([]);
    expect(machineWords('等离子 cutter 报警 5')).toEqual(analyze('cutter'));
    expect(machineWords('duet 3 error 12')).toEqual(analyze('duet'));
    expect(machineWords('Norvex PX-40 alarm 16')).toEqual(analyze('norvex'));
    // A quantity is not a model: the name stops there.
    expect(machineWords('a 24v psu error 5')).toEqual(analyze('psu'));
  });

  it('answers a code the named product defines on a machine the library does not know (the product runs on it)', () => {
    const torvald = { names: ['Torvald'], vocabulary: () => 0, folders: ['lathe'] };
    const vocab = (t: string) => (t === 'norvex' || t === 'px7' ? 0 : 5);
    const ev = collectEvidence({ question: 'norvex px7 torvald alarm 412', hits: PRESS_PASSAGES, codes: codes412, vocabulary: vocab, scope: torvald, products: ['Torvald'] });
    expect(ev.ownModels).toEqual(expect.arrayContaining(['norvex', 'px7']));
    expect(gate(ev, 1)).toMatchObject({ answer: true, rule: 'code-defined' });
    const orvan = collectEvidence({ question: 'norvex px7 orvan alarm 412', hits: PRESS_PASSAGES, codes: codes412, vocabulary: vocab, scope: { ...torvald, names: ['Orvan'], folders: ['press'] }, products: ['Orvan'] });
    expect(gate(orvan, 1).answer).toBe(false);
  });
});

describe('a name its maker coined, typed in lower case anywhere (no manual uses it, no dictionary has it)', () => {
  // "zentrix": a product the library has no manual for; "wonky", "doesnt": the technician's own words.
  const vocab = (t: string) => (analyze('zentrix wonky doesnt flt').includes(t) ? 0 : 5);

  it('reads it as a name wherever it stands, and refuses naming it', () => {
    const ev = collectEvidence({ question: 'the pressure switch on my zentrix doesnt adjust', hits: GENERIC_PASSAGES, codes: noCodes, vocabulary: vocab, spread: spreadOf(TASK_WORDS) });
    expect(ev.names).toEqual(analyze('zentrix'));
    const d = gate(ev, GENERIC_PASSAGES.length);
    expect(d).toMatchObject({ answer: false, rule: 'unknown-name' });
    expect(d.reason).toContain('"zentrix"');
    expect(d.reason).toContain('The installed manuals cover: lathe, press, printer, robot.');
  });

  it('with a code a manual defines, refuses: the code is another machine\'s', () => {
    const ev = collectEvidence({ question: 'brand new zentrix board reports alarm 412', hits: PRESS_PASSAGES, codes: codes412, vocabulary: vocab, spread: spreadOf(TASK_WORDS) });
    expect(gate(ev, 1)).toMatchObject({ answer: false, rule: 'code-other-scope' });
    expect(gate(ev, 1).reason).toContain('"zentrix"');
  });

  it('keeps words of the language, a code\'s own letters, identifiers, paths and words the library uses plain', () => {
    expect(decide('the pressure switch is wonky and doesnt adjust').d.answer).toBe(true);
    const none = (q: string) => coinedNames(q, (t) => vocab(t) === 0, new Map());
    expect(none('flt 412 after the pressure switch tripped')).toEqual([]);
    expect(none('zentrix_tool --zentrix-mode in docs/zentrix.md')).toEqual([]);
    expect(none('the zentrix-r4 board')).toEqual(analyze('zentrix'));
    expect(coinedNames('the zentrix board', () => false, new Map())).toEqual([]);
    // Without the library's vocabulary (not known) no word is judged unused.
    expect(collectEvidence({ question: 'my zentrix pressure switch', hits: GENERIC_PASSAGES, codes: noCodes }).names).toEqual([]);
  });

  it('keeps two words of the language written as one and camel-case identifiers plain', () => {
    const none = (q: string) => coinedNames(q, () => true, new Map());
    expect(none('the toolboard fan stopped')).toEqual([]);
    expect(none('getAlarm returns nothing')).toEqual([]);
    // A coined name in capitals inside stays a name ("ZenTrix"): only a lower-case start reads as code.
    expect(none('the ZenTrix board')).toEqual(analyze('zentrix'));
  });

  it('reads a coined name the library mentions only in passing, in none of the top passages, as a product it has no manual for', () => {
    // "zentrix" appears in two passages of the library (a link in another product's page), none of them retrieved.
    const passing = (t: string) => (analyze('zentrix').includes(t) ? 2 : 5);
    const ev = collectEvidence({ question: 'the pressure switch on my zentrix will not hold', hits: GENERIC_PASSAGES, codes: noCodes, vocabulary: passing, spread: spreadOf(TASK_WORDS) });
    expect(gate(ev, GENERIC_PASSAGES.length)).toMatchObject({ answer: false, rule: 'unknown-name' });
    expect(gate(ev, GENERIC_PASSAGES.length).reason).toMatch(/^The installed manuals mention "zentrix" only in passing\. The installed manuals cover: /);
    // A top passage that mentions it, many passages that use it, or the question naming it as a library product keep it answerable.
    const about = [hit('The zentrix pressure switch is set to 3 bar; adjust it with the knob.', { file: 'press/zentrix.md', manual: 'Orvan press' }), ...GENERIC_PASSAGES];
    expect(gate(collectEvidence({ question: 'the pressure switch on my zentrix will not hold', hits: about, codes: noCodes, vocabulary: passing, spread: spreadOf(TASK_WORDS) }), about.length).answer).toBe(true);
    const widely = (t: string) => (analyze('zentrix').includes(t) ? 40 : 5);
    expect(collectEvidence({ question: 'the pressure switch on my zentrix will not hold', hits: GENERIC_PASSAGES, codes: noCodes, vocabulary: widely }).names).toEqual([]);
    expect(collectEvidence({ question: 'the pressure switch on my zentrix will not hold', hits: GENERIC_PASSAGES, codes: noCodes, vocabulary: passing, products: ['Zentrix'] }).names).toEqual([]);
  });
});
