import { describe, expect, it } from 'vitest';
import { planQuery, quotedMessages, splitClauses, topicTerms } from '../../../native/search/plan/query-plan.js';

describe('splitClauses: cuts two-part questions at clause boundaries', () => {
  it.each([
    ['spindle alarm 12 on the lathe - which relay do I replace and what if the fuse keeps blowing?', [
      'spindle alarm 12 on the lathe',
      'which relay do I replace',
      'what if the fuse keeps blowing?',
    ]],
    ['the coolant pump hums but does not start, and is there a fuse for the pump motor', [
      'the coolant pump hums but does not start',
      'is there a fuse for the pump motor',
    ]],
    ['the coolant pump hums but does not start; also how do I bleed the coolant lines', [
      'the coolant pump hums but does not start;',
      'also how do I bleed the coolant lines',
    ]],
    ['what causes the servo overload trip, and what do the gain and filter parameters control?', [
      'what causes the servo overload trip',
      'what do the gain and filter parameters control?',
    ]],
    ['door interlock keeps opening the safety relay? how do I test the interlock switch', [
      'door interlock keeps opening the safety relay?',
      'how do I test the interlock switch',
    ]],
  ])('%s', (q, want) => {
    expect(splitClauses(q)).toEqual(want);
  });

  it.each([
    ['限位开关怎么接线，另外回零速度在哪里设置', ['限位开关怎么接线', '回零速度在哪里设置']],
    ['主轴报警12是什么意思，如果复位后主轴还是报警怎么办？', ['主轴报警12是什么意思', '如果复位后主轴还是报警怎么办？']],
    ['冷却泵不转以及冷却液管路怎么排气', ['冷却泵不转', '冷却液管路怎么排气']],
  ])('Chinese connectives: %s', (q, want) => {
    expect(splitClauses(q)).toEqual(want);
  });

  it.each([
    'check the power and ground wiring of the spindle drive',
    'press the start and stop button twice',
    'homing speed and pull-off distance for the z axis',
    'what is alarm 9 and what does it mean',
    'what does alarm 9 mean, and what next?',
    'spindle drive overheats - why?',
    '检查主轴驱动器的电源和地线',
    '报警9是什么意思，怎么处理',
    'spindle drive overheats; why?',
    'the motor is hot and is noisy',
    'the pump hums but does not start',
  ])('keeps one-part questions whole: %s', (q) => {
    expect(splitClauses(q)).toEqual([q]);
  });

  it('joins a thin piece back with its connective as written', () => {
    // "what next" has no topic of its own: the question stays as typed.
    expect(splitClauses('lube pump fault on the mill, and what next?')).toEqual(['lube pump fault on the mill, and what next?']);
  });

  it('thin pieces that together hold a topic are one question of their own', () => {
    // Neither "which other setting must be on" nor "what number is it" stands alone; together they do.
    expect(splitClauses('turning on the clamp guard gives error 10, which other setting must be on and what number is it?')).toEqual([
      'turning on the clamp guard gives error 10',
      'which other setting must be on and what number is it?',
    ]);
    // A run that stays thin still joins its neighbour.
    expect(splitClauses('What is alarm 9 and what does it mean, and what next?')).toEqual(['What is alarm 9 and what does it mean, and what next?']);
  });

  it('a leading "before / when / if" clause is the condition of the question after its comma, not a part', () => {
    expect(splitClauses('before I power up the hydraulic unit, what must I inspect on the pressure relief valve?')).toEqual([
      'before I power up the hydraulic unit, what must I inspect on the pressure relief valve?',
    ]);
    expect(splitClauses('when the spindle drive trips, which fuse blows and how do I replace the cooling fan?')).toEqual([
      'when the spindle drive trips, which fuse blows',
      'how do I replace the cooling fan?',
    ]);
    // A plain clause before a comma still opens its own part.
    expect(splitClauses('the spindle drive trips on start, which fuse blows?')).toEqual(['the spindle drive trips on start', 'which fuse blows?']);
  });

  it('keeps at most three parts, the rest joined to the last', () => {
    const q = 'spindle belt slips - which tensioner bolt do I loosen - what torque for the motor plate - where is the belt part number';
    const parts = splitClauses(q);
    expect(parts).toHaveLength(3);
    expect(parts[2]).toBe('what torque for the motor plate - where is the belt part number');
  });

  it('topic terms leave out generic question words and Chinese sub-words', () => {
    expect(topicTerms('what does it mean next')).toEqual([]);
    expect(topicTerms('which relay do I replace')).toEqual(['relai', 'replac']);
    expect(topicTerms('限位开关')).toEqual(['限位开关']);
  });
});

describe('planQuery', () => {
  it('one part per named code, each with its own context words and without the other code', () => {
    const plan = planQuery('reader shows P0301 and P0302 at idle, what do the two codes mean?');
    expect(plan.parts.map((p) => p.reason)).toEqual(['code', 'code']);
    expect(plan.parts.map((p) => p.codes)).toEqual([['p0301'], ['p0302']]);
    expect(plan.parts[0]?.query).toBe('reader shows P0301 at idle, what do the two codes mean?');
    expect(plan.parts[1]?.query).toBe('reader shows P0302 at idle, what do the two codes mean?');
  });

  it('codes written with their family words: alarm 3 and alarm 7', () => {
    const plan = planQuery('the mill showed alarm 3 then alarm 7 after the e-stop');
    expect(plan.parts).toHaveLength(2);
    expect(plan.parts[0]?.query).not.toMatch(/alarm 7/);
    expect(plan.parts[1]?.query).not.toMatch(/alarm 3/);
  });

  it('one code, one clause: no plan', () => {
    expect(planQuery('alarm 9 on the lathe after homing').parts).toEqual([]);
    expect(planQuery('check the power and ground wiring').parts).toEqual([]);
  });

  it('connective parts inherit the question code and the product context they lack', () => {
    const plan = planQuery('Zeta-5 shows alarm 12 - which relay do I replace and what if the fuse keeps blowing?', {
      context: ['Zeta-5'],
    });
    expect(plan.parts.map((p) => p.reason)).toEqual(['connective', 'connective', 'connective']);
    expect(plan.parts.map((p) => p.query)).toEqual([
      'Zeta-5 shows alarm 12',
      'Zeta-5 alarm 12 which relay do I replace',
      'Zeta-5 alarm 12 what if the fuse keeps blowing?',
    ]);
    expect(plan.parts[1]?.clause).toBe('which relay do I replace');
    expect(plan.parts.every((p) => p.codes.length === 1)).toBe(true);
  });

  it('a part that inherits a code carries its meaning too, clipped', () => {
    const plan = planQuery('lathe shows alarm 12 - which relay do I replace', {
      definitions: { 'alarm:12': 'Spindle contactor did not close within 2 s; check the K2 relay coil and its supply fuse F4 and then retry the start sequence' },
    });
    expect(plan.parts[1]?.query).toBe(
      'alarm 12 Spindle contactor did not close within 2 s; check the K2 relay coil and its supply which relay do I replace',
    );
    expect(plan.parts[0]?.query).toBe('lathe shows alarm 12');
  });

  it('inheritCodes: false keeps each clause to its own codes', () => {
    const plan = planQuery('alarm 12 on the lathe - which relay do I replace', { inheritCodes: false });
    expect(plan.parts[1]?.query).toBe('which relay do I replace');
    expect(plan.parts[1]?.codes).toEqual([]);
  });

  it('Chinese two-part question with a product name as context', () => {
    const plan = planQuery('限位开关怎么接线，另外回零速度在哪里设置', { context: ['Zeta'] });
    expect(plan.parts.map((p) => p.query)).toEqual(['Zeta 限位开关怎么接线', 'Zeta 回零速度在哪里设置']);
  });
});

describe('quoted messages', () => {
  it('finds text in quotes, never apostrophes', () => {
    expect(quotedMessages("Duet 3 board shows 'Driver 0 error: phase A may be disconnected'")).toEqual(['Driver 0 error: phase A may be disconnected']);
    expect(quotedMessages('klipper says "Move out of range" when homing')).toEqual(['Move out of range']);
    expect(quotedMessages('屏幕显示「电机过热」怎么办')).toEqual(['电机过热']);
    expect(quotedMessages("the arm won't stay put, it's sagging since we fitted the gripper")).toEqual([]);
  });

  it('a message of three or more topic terms is one more part of the plan; a short quote is not', () => {
    const plan = planQuery('klipper says "Move out of range error" after homing');
    expect(plan.parts.map((p) => [p.reason, p.query])).toEqual([['message', 'Move out of range error']]);
    expect(planQuery("display shows 'Err: MINTEMP'").parts).toEqual([]);
  });
});
