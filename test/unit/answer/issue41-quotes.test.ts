/**
 * Issue 41 item 1: the extractive answer quotes the lines that answer the question. Invented
 * passages, one per class of failure seen on manuals nobody tuned for.
 */
import { describe, expect, it } from 'vitest';
import { extractParts } from '../../../native/answer/extract.js';
import { hit } from './helpers.js';

const texts = (question: string, passages: ReturnType<typeof hit>[]) => extractParts(question, passages).map((p) => p.text);

describe('issue 41: which lines the extractive answer quotes', () => {
  it('quotes a list from its start, not from its best item (the causes listed first come too, in order)', () => {
    const causes = hit(
      [
        'Work through these checks in order.',
        '- The position loop gain is set higher than the load inertia allows.',
        '- The feedback cable shield is not grounded at the drive end.',
        '- A dragging holding brake makes the axis hunt and buzz around its setpoint while holding position.',
      ].join('\n'),
      { file: 'qx4/troubleshooting.md', manual: 'QX4 Servo Drive', section: 'Troubleshooting > Noise' },
    );
    const other = hit('The drive stores its parameters in flash memory.', { file: 'qx4/reference.md', manual: 'QX4 Servo Drive', section: 'Reference' });
    const got = texts('motor buzzes and hunts while holding position', [causes, other]);
    const first = got.indexOf('- The position loop gain is set higher than the load inertia allows.');
    const second = got.indexOf('- The feedback cable shield is not grounded at the drive end.');
    const third = got.findIndex((t) => t.startsWith('- A dragging holding brake'));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
    expect(third).toBeGreaterThan(second);
  });

  it('reads the best sentence from its paragraph start (the test whose result the question describes)', () => {
    const tuning = hit(
      [
        'Find the highest usable rate for each axis: raise the rate setting in small increments and jog the axis after each change. You will know you have passed the limit when the steppers stall and growl. Set the final value 15% below the last rate that worked.',
        'Repeat for the other axes.',
      ].join('\n'),
      { file: 'qx4/setup.md', manual: 'QX4 Stepper Controller', section: 'Setup > Rates' },
    );
    const other = hit('The controller accepts commands over USB and RS-485.', { file: 'qx4/interface.md', manual: 'QX4 Stepper Controller', section: 'Interface' });
    const got = texts('steppers stall and growl when I go faster', [tuning, other]);
    expect(got[0]).toBe('Find the highest usable rate for each axis: raise the rate setting in small increments and jog the axis after each change.');
    expect(got).toContain('Set the final value 15% below the last rate that worked.');
  });

  it('never quotes a step cut off where the passage ends', () => {
    const start = hit(
      ['1. Power the drive and check that the motor holds position.', '2. Send the motor a new position setpoint with'].join('\n'),
      { file: 'qx4/getting-started.md', manual: 'QX4 Servo Drive', section: 'Getting started' },
    );
    const causes = hit('If the motor vibrates while holding position, lower the position gain until the vibration stops.', {
      file: 'qx4/troubleshooting.md',
      manual: 'QX4 Servo Drive',
      section: 'Troubleshooting > Vibration',
    });
    const got = texts('motor vibrates while holding position', [start, causes]);
    expect(got.join('\n')).not.toMatch(/setpoint with$/m);
    expect(got).toContain('If the motor vibrates while holding position, lower the position gain until the vibration stops.');
  });
});

describe('issue 41: a document whose opening only restates the problem', () => {
  const intro = hit(
    '# QX4 reports mode 7 - Overheat\nMany users first meet mode 7 during long duty cycles. This page tells you why that happens and how to fix it.',
    { file: 'qx4/troubleshooting/mode-7.md', manual: 'QX4 Servo Drive', section: 'QX4 reports mode 7 - Overheat' },
  );
  const rest = hit(
    '## Why\nThe drive measures its heatsink every millisecond. Once the heatsink passes 85 °C the drive stops the motor and holds the brake. It then stays in this mode until it cools below 60 °C.\nClean the fan filter and check the cabinet temperature.',
    { file: 'qx4/troubleshooting/mode-7.md', manual: 'QX4 Servo Drive', section: 'QX4 reports mode 7 - Overheat > Why' },
  );
  const elsewhere = hit('In mode 7 of the teach pendant the jog keys move the tool frame.', {
    file: 'qx4/pendant.md',
    manual: 'QX4 Pendant',
    section: 'Pendant > Modes',
  });

  it('continues into the next passage of the same document (the cause and the fix follow the introduction)', () => {
    const got = texts('mode 7', [intro, rest, elsewhere]);
    expect(got).toContain('Once the heatsink passes 85 °C the drive stops the motor and holds the brake.');
  });

  it('reads a further passage’s quoted sentence from its paragraph start too', () => {
    const got = texts('mode 7', [intro, rest, elsewhere]);
    expect(got).toContain('The drive measures its heatsink every millisecond.');
    expect(got.indexOf('The drive measures its heatsink every millisecond.')).toBeLessThan(got.indexOf('It then stays in this mode until it cools below 60 °C.'));
  });
});

describe('issue 41: a procedure question gets the command', () => {
  it('a quoted sentence followed by a lead-in brings the example it introduces', () => {
    const overview = hit(
      '## Braking\nThe drive brakes the motor electrically when it decelerates, and by default it does not limit how much braking energy then flows back into the supply, which raises its voltage.',
      {
      file: 'qx4/guides/electrical.md',
      manual: 'QX4 Servo Drive',
        section: 'Electrical > Braking',
      },
    );
    const limit = hit(
      [
        '## Regenerated power',
        'Setting `regen.max_power_W` limits how much braking energy flows back into the supply. Any excess is burnt in the motor windings.',
        'For example, to allow no more than 50 W:',
        '```',
        'conf set regen.max_power_W 50',
        '```',
      ].join('\n'),
      { file: 'qx4/troubleshooting/overvoltage.md', manual: 'QX4 Servo Drive', section: 'Overvoltage > Regenerated power' },
    );
    const got = texts('limit how much braking energy flows back into the supply', [overview, limit]);
    expect(got.join('\n')).toContain('conf set regen.max_power_W 50');
  });

  it('quotes the primary passage under its heading, which names the setting its text calls "these values"', () => {
    const rates = hit(
      [
        '#### P210, P211 and P212 – [X,Y,Z] Top speed, mm/min',
        'This limits how fast each axis may travel. The simplest way to find these values is to raise them slowly and jog the axis after each change. You will know you have gone too far when the motors stall and growl. Enter a value 15% below that.',
      ].join('\n'),
      { file: 'qx4/settings.md', manual: 'QX4 Stepper Controller', section: 'Settings > P210, P211 and P212 – [X,Y,Z] Top speed, mm/min' },
    );
    const other = hit('The controller accepts commands over USB and RS-485.', { file: 'qx4/interface.md', manual: 'QX4 Stepper Controller', section: 'Interface' });
    const got = texts('motors stall and growl when I go faster', [rates, other]);
    expect(got[0]).toBe('#### P210, P211 and P212 – [X,Y,Z] Top speed, mm/min');
    expect(got).toContain('Enter a value 15% below that.');
  });

  it('quotes every alternative a lead-in introduces, past the "or" between them', () => {
    const failure = hit(
      [
        '# Troubleshooting homing',
        'Most homing failures end with the same message, one like:',
        '```',
        'HOME search timeout',
        '```',
        'or',
        '```',
        'index pulse not found within one turn',
        '```',
        'Work through the checks below from the first.',
      ].join('\n'),
      { file: 'qx4/troubleshooting.md', manual: 'QX4 Servo Drive', section: 'Troubleshooting homing' },
    );
    const other = hit('The drive stores its parameters in flash memory.', { file: 'qx4/reference.md', manual: 'QX4 Servo Drive', section: 'Reference' });
    const got = texts('home search timeout when homing', [failure, other]).join('\n');
    expect(got).toContain('HOME search timeout');
    expect(got).toContain('index pulse not found within one turn');
  });
});

describe('issue 41: a question that does not ask how gets the prose, not the listing', () => {
  it('answers a question in words from the prose that explains a setting, not from a configuration listing that repeats its words', () => {
    const listing = hit(
      ['```ini', '# load the level map components; interpolation defaults when the loadusr line names none', 'loadusr -W levelmap interpolation=linear', 'net level-on levelmap.enable <= panel.level-on', '```'].join('\n'),
      { file: 'qx4/config/level.ini', manual: 'QX4 Mill', section: 'Level map configuration' },
    );
    const prose = hit(
      'The loadusr line of the level map names its interpolation: nearest, linear or cubic. If the line names none, the level map uses cubic interpolation.',
      { file: 'qx4/level-map.md', manual: 'QX4 Mill', section: 'Level map' },
    );
    const got = extractParts('which interpolation does the level map use if the loadusr line names none', [listing, prose]);
    expect(got[0]).toEqual({ text: 'The loadusr line of the level map names its interpolation: nearest, linear or cubic.', passage: 1 });
    expect(got.map((p) => p.text)).toContain('If the line names none, the level map uses cubic interpolation.');
  });

  it('a question that asks what to do gets the procedure a label introduces, though its words are in the description above it', () => {
    const errors = hit(
      [
        '### Memory errors',
        'After a firmware update the stored settings may no longer match the new layout, and the panel shows a checksum mismatch.',
        '**Recovery procedure**',
        '- Disconnect the host software first.',
        '- Send R50 then S50 and restart the controller.',
      ].join('\n'),
      { file: 'kx/troubleshooting.md', manual: 'KX Controller', section: 'Troubleshooting > Memory errors' },
    );
    const question = 'after a firmware update the panel shows a checksum mismatch and my settings are gone';
    expect(texts(`${question}, what do I do?`, [errors])).toEqual(expect.arrayContaining(['**Recovery procedure**', '- Disconnect the host software first.', '- Send R50 then S50 and restart the controller.']));
  });
});

describe('issue 41: no hole left between quoted lines of one passage', () => {
  it('quotes the second cause a paragraph gives when a later paragraph is read from its start', () => {
    const timing = hit(
      [
        'If a carriage ends up somewhere else after repeated moves, the direction hold time of the driver is likely too short. Each reversal may then lose a step. If the motor stalls as well, the acceleration limit is set too high for that carriage.',
        'The program below checks the setup. Save it as drift.ngc. Home the machine. Load and run it. It moves the carriage back and forth 200 times. If the setup is wrong, the final position differs from the one displayed.',
      ].join('\n'),
      { file: 'qx4/diagnostics.md', manual: 'QX4 Stepper Controller', section: 'Diagnostics > Step timing' },
    );
    const other = hit('The controller accepts commands over USB and RS-485.', { file: 'qx4/interface.md', manual: 'QX4 Stepper Controller', section: 'Interface' });
    const got = texts('carriage creeps off position over many back and forth moves', [timing, other]);
    expect(got).toContain('Each reversal may then lose a step.');
    expect(got).toContain('If the motor stalls as well, the acceleration limit is set too high for that carriage.');
    expect(got).toContain('It moves the carriage back and forth 200 times.');
  });
});

describe('issue 41: a line that carries more of the question than any line of the primary passage', () => {
  it('is quoted although the primary passage fills the budget (an overview leads, the section that answers follows)', () => {
    const overview = hit(
      [
        '# QX4 Servo Drive documentation',
        'The QX4 drive runs from 12 V to 48 V.',
        'Torque and velocity limits can be changed while running.',
        'The QX4 closes its control loops at 20 kHz.',
        'Torque ripple is compensated by the control loop.',
        'The QX4 measures its torque constant at calibration.',
        'Control commands keep running over CAN at 5 Mbps.',
        'The QX4 limits torque when the drive gets hot.',
        'The brake output is under the control of the QX4.',
        'Torque control is the default after power-on.',
      ].join('\n'),
      { file: 'qx4/index.md', manual: 'QX4 Servo Drive', section: 'QX4 Servo Drive documentation' },
    );
    const torque = hit(
      ['## Torque mode', 'For a pure torque control application, set the position gains to 0.', 'Send kp_scale and kd_scale as 0 with each command.'].join('\n'),
      { file: 'qx4/modes.md', manual: 'QX4 Servo Drive', section: 'Control modes > Torque mode' },
    );
    const got = texts('run the QX4 as a pure torque controller', [overview, torque]);
    expect(got).toContain('For a pure torque control application, set the position gains to 0.');
  });
});

describe('issue 41: a procedure is quoted with the step written as prose after its numbered ones', () => {
  const tuning = { file: 'zx9/anticogging.md', manual: 'ZX9 Drive', section: 'Tuning > Anticogging' };
  const other = hit('The drive reports its temperature over CAN every 100 ms.', { file: 'zx9/can.md', manual: 'ZX9 Drive', section: 'CAN' });

  it('brings "Then save the configuration" after the numbered steps', () => {
    const steps = hit(
      [
        'Anticogging calibration measures the cogging torque of the motor so the drive can cancel it.',
        'To run the calibration:',
        '1. Put the axis in closed loop control.',
        '2. Start it with `zx9.axis0.start_anticogging()`.',
        '3. Wait until `anticogging_valid` reads True.',
        'Then save the configuration so the map stays after a reboot.',
      ].join('\n'),
      tuning,
    );
    const saving = hit(
      ['## Saving the configuration', 'Settings are lost at power-off unless saved. To keep the configuration after a reboot, run:', '```', 'zx9.save_configuration()', '```'].join('\n'),
      { file: 'zx9/config.md', manual: 'ZX9 Drive', section: 'Configuration > Saving the configuration' },
    );
    const got = texts('run anticogging calibration then save it', [steps, saving]);
    expect(got).toContain('Then save the configuration so the map stays after a reboot.');
    expect(got.indexOf('Then save the configuration so the map stays after a reboot.')).toBe(got.indexOf('3. Wait until `anticogging_valid` reads True.') + 1);
  });

  it('brings the command that such a step introduces', () => {
    const steps = hit(
      ['1. Put the axis in closed loop control.', '2. Start the calibration with `zx9.axis0.start_anticogging()`.', '3. Wait until `anticogging_valid` reads True.', 'Finally, save the map:', '```', 'zx9.save_configuration()', '```'].join('\n'),
      tuning,
    );
    const got = texts('start the anticogging calibration', [steps, other]);
    expect(got).toContain('Finally, save the map:');
    expect(got.join('\n')).toContain('zx9.save_configuration()');
  });
});

describe('issue 41: a lead-in after a paragraph break waits for the lines that carry the question', () => {
  it('quotes how to leave the state before the list of reasons the next paragraph introduces', () => {
    const timeout = hit(
      [
        '## Timeout mode',
        'The drive expects a command every 100 ms. If none arrives, the drive enters timeout mode.',
        'There are two reasons for this:',
        '1. Safety: a crashed host must not leave the motor running.',
        '2. Convenience: quitting the program stops the motor.',
        'Once in timeout mode, the drive leaves it only on a stop request. This keeps the motor from starting unexpectedly. Scripts must therefore send a stop request first.',
        'The console sets no time limit at all. That is why the problem mostly shows with scripts.',
        'A drive in timeout mode holds no torque and ignores motion commands.',
      ].join('\n'),
      { file: 'zx9/timeout.md', manual: 'ZX9 Drive', section: 'Troubleshooting > Timeout mode' },
    );
    const other = hit('The drive reports its temperature over CAN every 100 ms.', { file: 'zx9/can.md', manual: 'ZX9 Drive', section: 'CAN' });
    const got = extractParts('drive stuck in timeout mode ignoring commands', [timeout, other], { maxUnits: 4 }).map((p) => p.text);
    expect(got).toContain('Once in timeout mode, the drive leaves it only on a stop request.');
    expect(got).toContain('A drive in timeout mode holds no torque and ignores motion commands.');
  });
});
