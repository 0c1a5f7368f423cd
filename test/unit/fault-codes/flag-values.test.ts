/**
 * issue 41 (5): a value typed for an enumeration of flags (`axis error 0x40`) is read as the named
 * flags it is made of, where the enumeration states its flags' values (`bit: 6`, `value: 0x40`,
 * `1 << 6`); exact codes keep priority, and no bit is guessed from the entries' order.
 * The fixtures are written here; their content is invented.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeRecord } from '../../../native/contract/document.js';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import { CodeIndex } from '../../../native/fault-codes/index.js';
import { parseFile } from '../../../native/parse/index.js';
import { tempDir } from '../parse/helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

async function recordsOf(name: string, data: string, file = `winch/${name}`): Promise<CodeRecord[]> {
  const doc = await parseFile(await tmp.file(name, data));
  return extractCodes(doc, { file, manual: 'Winch Interface', equipment: [] });
}

const WINCH_YAML = `name: Winch interface
valuetypes:
  Winch.Axis.Error:
    flags:
      INVALID_STATE:
        bit: 0
        brief: An invalid state was requested.
        doc: Request a state the axis supports in its current mode.
      CABLE_SLACK:
        bit: 1
        brief: The cable went slack while winding.
        doc: Tension the cable before you start winding again.
      DRUM_OVERHEAT:
        bit: 6
        brief: The drum motor is too hot.
        doc: Let the drum cool down and check the cooling fan.
  Winch.Brake.Error:
    flags:
      BRAKE_WORN:
        value: 0x4
        brief: The brake lining is worn.
        doc: Replace the brake lining.
      BRAKE_STUCK:
        value: 1 << 3
        brief: The brake does not release.
        doc: Check the brake coil supply.
  Winch.Drum.Error:
    flags:
      DRUM_JAM:
        brief: The drum is jammed.
        doc: Clear the drum.
      DRUM_SLIP:
        brief: The drum slips on its shaft.
        doc: Tighten the shaft clamp.
`;

const CODES_CSV = `Error Code,Message,Description
0x42,Remote stop,The remote control sent a stop.
`;

describe('values of flags typed as a number', () => {
  it('reads 0x40 as the flag whose bit is 6, shown as such', async () => {
    const idx = new CodeIndex(await recordsOf('winch.yaml', WINCH_YAML));
    const r = idx.lookup('axis error 0x40');
    expect(r.matches.map((m) => m.code)).toEqual(['DRUM_OVERHEAT']);
    expect(r.matches[0]?.decoded).toBe('0x40 = DRUM_OVERHEAT (bit 6)');
    expect(r.matches[0]?.remedy).toContain('cooling fan');
  });

  it('reads a value of several bits as every flag that makes it up, in bit order', async () => {
    const idx = new CodeIndex(await recordsOf('winch.yaml', WINCH_YAML));
    const r = idx.lookup('0x41');
    expect(r.matches.map((m) => m.code)).toEqual(['INVALID_STATE', 'DRUM_OVERHEAT']);
    expect(r.matches[0]?.decoded).toBe('0x41 = INVALID_STATE (bit 0) + DRUM_OVERHEAT (bit 6)');
    // A decimal value reads the same (65 = 0x41).
    expect(idx.lookup('axis error 65').matches.map((m) => m.code)).toEqual(['INVALID_STATE', 'DRUM_OVERHEAT']);
    // A bare number does not say it is a value of errors.
    expect(idx.lookup('65').matches).toEqual([]);
  });

  it('takes a value stated as `value: 0x4` or `1 << 3`, and keeps it out of the meaning', async () => {
    const recs = await recordsOf('winch.yaml', WINCH_YAML);
    const worn = recs.find((x) => x.code === 'BRAKE_WORN');
    expect(worn?.flag?.value).toBe(4);
    expect(worn?.description).not.toMatch(/^0x4$|^4$/);
    const idx = new CodeIndex(recs);
    const r = idx.lookup('brake error 0xC');
    expect(r.matches.map((m) => m.code)).toEqual(['BRAKE_WORN', 'BRAKE_STUCK']);
    expect(r.matches[0]?.decoded).toBe('0xC = BRAKE_WORN (bit 2) + BRAKE_STUCK (bit 3)');
  });

  it('names nothing for a value with a bit no flag states, and guesses no bit from the order', async () => {
    const idx = new CodeIndex(await recordsOf('winch.yaml', WINCH_YAML));
    // Bit 5 is no flag of any enumeration; the drum's flags state no values.
    expect(idx.lookup('0x60').matches).toEqual([]);
    expect(idx.lookup('drum error 0x2').matches.map((m) => m.code)).toEqual(['CABLE_SLACK']);
  });

  it('keeps a code written as the value first', async () => {
    const idx = new CodeIndex([...(await recordsOf('winch.yaml', WINCH_YAML)), ...(await recordsOf('codes.csv', CODES_CSV))]);
    const r = idx.lookup('0x42');
    expect(r.matches.map((m) => [m.code, m.decoded])).toEqual([['0x42', undefined]]);
  });
});
