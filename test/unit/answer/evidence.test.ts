import { describe, expect, it } from 'vitest';
import type { CodeLookupResponse } from '../../../native/contract/api.js';
import { collectEvidence, contentTerms, gate, questionNames, questionWords, weightedCoverage } from '../../../native/answer/evidence.js';
import { analyze } from '../../../native/text/analyze.js';
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
  it("drops the forms of generic verbs the stemmer keeps apart, indefinite pronouns and stop-word contractions", () => {
    expect(contentTerms("there's a leak, it goes everywhere and everything got wet once I found the pump")).toEqual(['leak', 'wet', 'pump']);
  });
  it('finds capitalised names, acronyms and model numbers, not codes', () => {
    expect(questionNames('Haas VF-2 alarm 108 servo overload on the ABB robot')).toEqual(['haa', 'vf2', 'abb']);
  });
  it('takes a quantity for a quantity, not a model: 5k rpm, 24V, 2.5kW, 100ms, a 6S pack', () => {
    expect(questionNames('past 5k rpm on 24V, 2.5kW, 100ms cycles, a 6S pack and a 840D')).toEqual(['840d']);
  });
  it('drops every negative contraction and the pronouns and particles of a Chinese question', () => {
    expect(contentTerms("pump haven't primed, hasn't run, shouldn't leak, wouldn't start")).toEqual(['pump', 'prime', 'run', 'leak', 'start']);
    expect(contentTerms('在自己的程序里读出报警')).not.toEqual(expect.arrayContaining(['自己', '里']));
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
  it('refuses a quoted message that no top passage shows most of the words of', () => {
    const shown = hit('If the display shows "Hydraulic pressure low - check pump", stop the press and check the oil level.');
    const ok = decide("press shows 'hydraulic pressure low, check pump'", [shown, ...PASSAGES]);
    expect(ok.ev.unmatchedMessage).toBeNull();
    const other = decide("press shows 'accumulator precharge lost on valve block'", [shown, ...PASSAGES]);
    expect(other.d).toMatchObject({ answer: false, rule: 'unknown-message' });
    expect(other.d.reason).toBe('No installed manual shows the message "accumulator precharge lost on valve block".');
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

/** A library vocabulary over a few fixture texts: passages holding each analyzed term. */
function vocabularyOf(texts: string[]): (term: string) => number {
  const sets = texts.map((t) => new Set(analyze(t)));
  return (term) => sets.filter((s) => s.has(term)).length;
}

describe('gate on Chinese questions', () => {
  const ZH = [
    hit('液压油每运行 2000 小时更换一次。使用 ISO VG 46 液压油。', { section: '保养 > 液压油', file: 'press-zh/hpb-200.md', lang: 'zh' }),
    hit('每天启动油泵前检查油位。', { section: '保养 > 每日检查', file: 'press-zh/hpb-200.md', lang: 'zh' }),
  ];
  const library = vocabularyOf([...ZH.map((h) => h.text), ...PASSAGES.map((h) => h.text)]);

  it('splits the question into jieba words like the index, not one term per sentence', () => {
    expect(questionWords('液压油多久更换一次？')).toEqual(analyze('液压油多久更换一次'));
    const ev = collectEvidence({ question: '液压油多久更换一次？', hits: ZH, codes: noCodes, vocabulary: library });
    expect(ev.terms.length).toBeGreaterThan(2);
    expect(ev.terms).toEqual(expect.arrayContaining(['液压油', '更换']));
    // Each term is shown as its own word, never as the whole sentence.
    for (const w of Object.values(ev.words)) expect(w.length).toBeLessThan('液压油多久更换一次'.length);
  });
  it('answers a Chinese question that a Chinese manual covers', () => {
    const ev = collectEvidence({ question: '液压油多久更换一次？', hits: ZH, codes: noCodes, vocabulary: library });
    expect(gate(ev, ZH.length)).toMatchObject({ answer: true, rule: 'covered' });
  });
  it("does not let a Chinese question's fillers (应该, 需要, 之后 …) veto the topic words the manual covers", () => {
    for (const q of ['液压油应该需要多久更换一次？', '每天启动油泵之前，是否需要先检查油位？', '液压油每次更换之后还是应该使用什么油？']) {
      const ev = collectEvidence({ question: q, hits: ZH, codes: noCodes, vocabulary: library });
      expect(gate(ev, ZH.length), q).toMatchObject({ answer: true });
    }
  });
  it('refuses a Chinese question about what the manuals lack, naming the missing words one by one', () => {
    const q = '冷却液浓度用折射仪怎么测量和调整';
    const ev = collectEvidence({ question: q, hits: ZH, codes: noCodes, vocabulary: library });
    const d = gate(ev, ZH.length);
    expect(d.answer).toBe(false);
    expect(d.reason).not.toContain(q);
  });
});

describe('gate on names the library knows', () => {
  // The press brake's model name is in its specification chapter, not in the maintenance passages found.
  const library = vocabularyOf([...PASSAGES.map((h) => h.text), 'Specifications of the PB-40: 40 t press brake, 2.5 m bed.']);
  it('a name that the library holds is not unknown because the top passages lack it', () => {
    const ev = collectEvidence({ question: 'PB-40 hydraulic oil change interval', hits: PASSAGES, codes: noCodes, vocabulary: library });
    expect(ev.names).toContain('pb40');
    expect(ev.missing).toEqual(expect.arrayContaining(['pb40', 'pb', '40']));
    expect(ev.missingNames).toEqual([]);
    expect(gate(ev, PASSAGES.length)).toMatchObject({ answer: true, rule: 'covered' });
    // Without the vocabulary (the top passages alone) the same name is unknown.
    expect(gate(collectEvidence({ question: 'PB-40 hydraulic oil change interval', hits: PASSAGES, codes: noCodes }), PASSAGES.length).rule).toBe('unknown-name');
  });
  it('a name the library has never seen still refuses', () => {
    const ev = collectEvidence({ question: 'Tesla hydraulic oil change interval', hits: PASSAGES, codes: noCodes, vocabulary: library });
    expect(gate(ev, PASSAGES.length)).toMatchObject({ answer: false, rule: 'unknown-name' });
  });
  it('a defined code is still refused for a machine its manual does not mention, even one the library knows', () => {
    const lib = vocabularyOf(['HPB-200 alarm list', 'Press brake controller PBC-7 wiring']);
    const ev = collectEvidence({ question: 'PBC-7 alarm 1', hits: PASSAGES, codes: { ...noCodes, detected: ['alarm:1'], matches: [alarm1] }, vocabulary: lib });
    expect(gate(ev, PASSAGES.length)).toMatchObject({ answer: false, rule: 'code-other-scope' });
  });
  it("a defined code answers for a bare model designation the library never uses (the technician's own name for the machine)", () => {
    const lib = vocabularyOf(PASSAGES.map((h) => h.text));
    const ev = collectEvidence({ question: 'alarm 1 on our HX7 what do i do', hits: PASSAGES, codes: { ...noCodes, detected: ['alarm:1'], matches: [alarm1] }, vocabulary: lib });
    expect(ev.ownModels).toEqual(['hx7']);
    expect(gate(ev, PASSAGES.length)).toMatchObject({ answer: true, rule: 'code-defined' });
    // An unknown brand beside it, or no code at all, still refuses.
    const brand = collectEvidence({ question: 'alarm 1 on our Haas HX7', hits: PASSAGES, codes: { ...noCodes, detected: ['alarm:1'], matches: [alarm1] }, vocabulary: lib });
    expect(gate(brand, PASSAGES.length)).toMatchObject({ answer: false, rule: 'code-other-scope' });
    const noCode = collectEvidence({ question: 'HX7 hydraulic oil change interval', hits: PASSAGES, codes: noCodes, vocabulary: lib });
    expect(gate(noCode, PASSAGES.length)).toMatchObject({ answer: false, rule: 'unknown-name' });
  });
});

describe('gate on colloquial phrasing', () => {
  const SERVO = [
    hit('Servo motor overheating: the drive reduces torque when the motor temperature exceeds 80 °C. Check the cooling fan and reduce the duty cycle.', {
      section: 'Troubleshooting > Overheating',
      file: 'servo/sd40.md',
      manual: 'SD40 Servo Drive',
    }),
    hit('Holding brake: the brake releases when the drive is enabled. A brake that does not release makes the motor hot.', {
      section: 'Brake',
      file: 'servo/sd40.md',
      manual: 'SD40 Servo Drive',
    }),
  ];
  const library = vocabularyOf([
    ...SERVO.map((h) => h.text),
    'Press the enable button once the guard is closed.',
    'Keep the cable away from the spindle.',
    'Let the motor cool down before you touch it.',
  ]);
  it('words no manual uses (colloquial verbs, fillers) do not veto covered topic words', () => {
    const q = 'since monday the servo motor just cooks itself and the brake never lets go, weird';
    const ev = collectEvidence({ question: q, hits: SERVO, codes: noCodes, vocabulary: library });
    expect(ev.missing.length).toBeGreaterThanOrEqual(3); // "monday", "cooks", "lets", "weird" are in no passage
    expect(gate(ev, SERVO.length)).toMatchObject({ answer: true, rule: 'covered' });
    // Without the library's vocabulary the same words would veto it: the fix is the vocabulary, not a word list.
    expect(gate(collectEvidence({ question: q, hits: SERVO, codes: noCodes }), SERVO.length).answer).toBe(false);
  });
  it('refuses when most of the question is words no manual uses', () => {
    const ev = collectEvidence({ question: 'refractometer reading for the servo coolant concentrate', hits: SERVO, codes: noCodes, vocabulary: library });
    expect(gate(ev, SERVO.length)).toMatchObject({ answer: false, rule: 'unknown-terms' });
    expect(gate(ev, SERVO.length).reason).toContain('No installed manual uses the words');
  });
  it('still refuses when words the library does use are missing from the passages', () => {
    const q = 'spindle cable guard enable button servo';
    const ev = collectEvidence({ question: q, hits: SERVO, codes: noCodes, vocabulary: library });
    expect(gate(ev, SERVO.length)).toMatchObject({ answer: false, rule: 'unknown-terms' });
  });
  it('words scattered over unrelated documentation sets do not add up to an answer', () => {
    const scattered = [
      hit('Coolant tank: empty it every month.', { file: 'lathe/manual.md', manual: 'Lathe' }),
      hit('Concentration of the cleaning agent: 5 %.', { file: 'washer/manual.md', manual: 'Washer' }),
      hit('Aluminium parts are deburred by hand.', { file: 'deburr/manual.md', manual: 'Deburring' }),
      hit('The refractometer sits in the lab cabinet.', { file: 'lab/inventory.md', manual: 'Lab' }),
    ];
    const ev = collectEvidence({ question: 'coolant concentration for aluminium with a refractometer', hits: scattered, codes: noCodes });
    expect(ev.unionCoverage).toBe(1);
    expect(weightedCoverage(ev).source).toBe(0.25);
    expect(gate(ev, scattered.length).answer).toBe(false);
  });
});

describe('gate on names the named product does not use', () => {
  // A servo drive maker's pages, and another product's pages that mention a fieldbus vendor.
  const DRIVE = [
    hit('The Velox drive talks CAN-FD at 1 Mbit/s; set the node ID with the conf tool.', { section: 'Interfaces > CAN-FD', file: 'velox/interfaces.md', manual: 'Velox drive' }),
    hit('Velox drive supply: 10–44 V. Use the CAN-FD port for commands.', { section: 'Electrical', file: 'velox/electrical.md', manual: 'Velox drive' }),
  ];
  const veloxText = [...DRIVE.map((h) => h.text), 'Velox drive firmware update over CAN-FD with the flash tool.'];
  const otherText = ['The EtherCAT master talks to the Kestrel PLC over the fieldbus.', 'Kestrel PLC wiring for the mill.'];
  const library = vocabularyOf([...veloxText, ...otherText]);
  const scope = { names: ['velox'], vocabulary: vocabularyOf(veloxText) };

  it('refuses a question about the product with a name only other manuals use, and says which', () => {
    const q = 'can a Velox drive be run over the fieldbus from a Kestrel PLC';
    const ev = collectEvidence({ question: q, hits: DRIVE, codes: noCodes, vocabulary: library, scope });
    expect(ev.namesOutsideScope).toEqual(['kestrel', 'plc']);
    const d = gate(ev, DRIVE.length);
    expect(d).toMatchObject({ answer: false, rule: 'name-other-scope' });
    expect(d.reason).toBe('The manuals of "Velox" do not mention "Kestrel", "PLC" (other manuals do).');
  });

  it('answers when the product’s own manuals use the other names, or when no product is named', () => {
    const own = collectEvidence({ question: 'Velox drive over CAN-FD: which node ID and supply voltage', hits: DRIVE, codes: noCodes, vocabulary: library, scope });
    expect(own.namesOutsideScope).toEqual([]);
    const unscoped = collectEvidence({ question: 'can a Velox drive be run over the fieldbus from a Kestrel PLC', hits: DRIVE, codes: noCodes, vocabulary: library });
    expect(unscoped.namesOutsideScope).toEqual([]);
  });

  it('does not take a capitalised first word for a name, nor a name no manual uses (that is the unknown-name rule)', () => {
    const first = collectEvidence({ question: 'Fieldbus wiring for the Velox drive CAN-FD port', hits: DRIVE, codes: noCodes, vocabulary: library, scope });
    expect(first.namesOutsideScope).toEqual([]);
    const unknown = collectEvidence({ question: 'Velox drive on a Zorblat controller', hits: DRIVE, codes: noCodes, vocabulary: library, scope });
    expect(unknown.namesOutsideScope).toEqual([]);
    expect(gate(unknown, DRIVE.length).rule).toBe('unknown-name');
  });
});
