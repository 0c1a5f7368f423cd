/**
 * Issue 41 item 2: the text a technician reads (answers, source cards, code cards, the CLI) is the
 * manual's wording without markup: a YAML item as labelled fields (no `doc: |`), a code's headline
 * said once, two statements on two lines kept on two lines, no code fences in printed answers, and a
 * manual's own "[2]" shown as written yet never read as a citation. Invented fixtures.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { AskResponse } from '../../../native/contract/answer.js';
import type { CodeMatch } from '../../../native/contract/api.js';
import { codeDetail } from '../../../native/contract/codes.js';
import { checkCitations } from '../../../native/answer/citations.js';
import { codeAnswerLines, renderParts } from '../../../native/answer/extract.js';
import { chunkDocument } from '../../../native/chunk/index.js';
import { formatAnswer } from '../../../native/cli/format-answer.js';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import { parseMarkdown } from '../../../native/parse/formats/markdown.js';
import { parseRst } from '../../../native/parse/formats/rst.js';
import { parseYamlDoc } from '../../../native/parse/formats/structured.js';
import { parseText } from '../../../native/parse/formats/text.js';
import { AnswerText, splitCitations } from '../../../renderer/src/features/answer/AnswerText.js';
import { Structured } from '../../../renderer/src/ui/Structured.js';
import { structure } from '../../../renderer/src/ui/structure.js';

const PUMP_YAML = `valuetypes:
  Pump.Error:
    flags:
      SEAL_LEAK:
        brief: Coolant reached the seal sensor.
        doc: |
          Coolant reached the seal sensor.
          Replace the shaft seal before the next run.
      DRY_RUN:
        brief: The pump ran without coolant.
        doc: >
          Fill the reservoir
          and bleed the line.
`;

const parsedPump = () => parseYamlDoc({ text: PUMP_YAML, fileStem: 'pump-errors' });
const noYamlSyntax = (text: string) => {
  expect(text).not.toMatch(/:\s*[|>][-+]?\s*$/m);
  expect(text).not.toMatch(/^\s{2,}\S/m);
};

describe('a YAML item reads as labelled fields', () => {
  it('in its passage: no block markers or indentation, one field a line, its lines kept', () => {
    const chunks = chunkDocument(parsedPump(), { file: 'pump/pump-errors.yaml', manual: 'Pump' }).filter((c) => c.kind === 'table-row');
    const seal = chunks.find((c) => c.text.includes('SEAL_LEAK'))!;
    noYamlSyntax(seal.text);
    expect(seal.text).toContain('brief: Coolant reached the seal sensor.');
    expect(seal.text).toMatch(/doc: Coolant reached the seal sensor\.\nReplace the shaft seal before the next run\./);
    const dry = chunks.find((c) => c.text.includes('DRY_RUN'))!;
    noYamlSyntax(dry.text);
    expect(dry.text).toContain('doc: Fill the reservoir and bleed the line.');
  });

  it('in its code record (the source card of a code answer)', () => {
    const recs = extractCodes(parsedPump(), { file: 'pump/pump-errors.yaml', manual: 'Pump', equipment: [] });
    expect(recs.map((r) => r.code)).toEqual(['SEAL_LEAK', 'DRY_RUN']);
    for (const r of recs) noYamlSyntax(r.text);
  });

  it('on the search page and in a source card: fields, the multi-line value on its lines', () => {
    const text = 'key: SEAL_LEAK | brief: Coolant reached the seal sensor.\n'.replace(' | ', '\n') + 'doc: Coolant reached the seal sensor.\nReplace the shaft seal.';
    expect(structure(text, { tableRow: true })).toEqual([
      {
        kind: 'fields',
        fields: [
          ['key', 'SEAL_LEAK'],
          ['brief', 'Coolant reached the seal sensor.'],
          ['doc', 'Coolant reached the seal sensor.\nReplace the shaft seal.'],
        ],
      },
    ]);
  });
});

describe("a code's headline is said once", () => {
  const match = (title: string, description: string): CodeMatch =>
    ({ code: 'SEAL_LEAK', key: 'seal_leak', title, description, cause: '', remedy: '', scope: [] }) as unknown as CodeMatch;

  it('drops a first sentence or line of the description that repeats the headline', () => {
    const m = match('Coolant reached the seal sensor.', 'Coolant reached the seal sensor. Replace the shaft seal before the next run.');
    expect(codeDetail(m)).toBe('Replace the shaft seal before the next run.');
    const lines = codeAnswerLines(m);
    expect(lines.join('\n').match(/Coolant reached the seal sensor/g)).toHaveLength(1);
    expect(codeDetail(match('Seal leak', 'Seal leak\nReplace the shaft seal.'))).toBe('Replace the shaft seal.');
    expect(codeDetail(match('冷却液到达密封传感器', '冷却液到达密封传感器。更换轴封。'))).toBe('更换轴封。');
  });

  it('keeps a description that only starts with the headline\'s words', () => {
    expect(codeDetail(match('Seal', 'Seal leak detected. Replace the seal.'))).toBe('Seal leak detected. Replace the seal.');
    expect(codeDetail(match('Pump stopped', 'The pump stopped.'))).toBe('The pump stopped.');
  });

  it('from a YAML entry whose doc repeats its brief', () => {
    const rec = extractCodes(parsedPump(), { file: 'pump/pump-errors.yaml', manual: 'Pump', equipment: [] })[0]!;
    const lines = codeAnswerLines({ ...rec, manual: rec.manual } as unknown as CodeMatch).join('\n');
    expect(lines.match(/Coolant reached the seal sensor/g)).toHaveLength(1);
    expect(lines).toContain('Replace the shaft seal before the next run.');
  });
});

describe('separate statements stay on separate lines', () => {
  const source = 'The axis trips when\n\nvel_estimate < -vel_limit\nvel_estimate > vel_limit\n\nRaise the limit.\n';
  for (const [name, parse] of [
    ['Markdown', parseMarkdown],
    ['plain text', parseText],
    ['RST', parseRst],
  ] as const) {
    it(`in ${name}`, () => {
      const texts = parse({ text: source, fileStem: 'axis' }).blocks.map((b) => b.text);
      expect(texts).toContain('vel_estimate < -vel_limit\nvel_estimate > vel_limit');
    });
  }

  it('while a wrapped sentence is still one line', () => {
    const texts = parseMarkdown({ text: '# Axis\n\nThe axis trips when the estimate\nleaves the band set by vel_limit.\n', fileStem: 'axis' }).blocks.map((b) => b.text);
    expect(texts).toContain('The axis trips when the estimate leaves the band set by vel_limit.');
  });
});

describe('printed answers carry no markup', () => {
  it('the CLI shows a quoted code block indented, without its fences, and a heading without #', () => {
    const a = {
      question: 'how do I calibrate',
      standaloneQuery: 'how do I calibrate',
      answer: '## Calibration [1]\nRun the calibration: [1]\n```bash\npump calibrate --full\n```',
      mode: 'extractive',
      refused: false,
      citations: [],
      safety: [],
      ms: 12,
    } as unknown as AskResponse;
    const printed = formatAnswer(a);
    expect(printed).not.toContain('```');
    expect(printed).not.toMatch(/^#/m);
    expect(printed).toContain('Calibration [1]');
    expect(printed).toContain('    pump calibrate --full');
  });
});

describe("a manual's own [2] is shown as written, never as a citation", () => {
  const answer = renderParts([{ text: 'In [2] the seal is shown from below; see also [3, 4].', passage: 0 }], () => 1);

  it('keeps ASCII brackets (no full-width ［2］) in the answer text', () => {
    expect(answer).not.toMatch(/［|］/);
    expect(answer.replaceAll('\u2060', '')).toBe('In [2] the seal is shown from below; see also [3, 4]. [1]');
  });

  it('is no citation for the citation check or the answer view', () => {
    expect(checkCitations(answer, 10).valid).toEqual([1]);
    expect(splitCitations(answer).filter((p) => typeof p !== 'string')).toEqual([[1]]);
    const html = renderToStaticMarkup(
      createElement(Structured, { text: answer, inline: (t: string) => createElement(AnswerText, { text: t, known: new Set([1, 2, 3, 4]), onCite: () => {} }) }),
    );
    expect(html.match(/<button/g)).toHaveLength(1);
    expect(html).toContain('aria-label="Open source 1"');
    expect(html.replaceAll('\u2060', '')).toContain('In [2] the seal is shown from below; see also [3, 4].');
  });

  it('prints as written in the CLI', () => {
    const printed = formatAnswer({ question: 'q', standaloneQuery: 'q', answer, mode: 'extractive', refused: false, citations: [], safety: [], ms: 1 } as unknown as AskResponse);
    expect(printed).toContain('In [2] the seal is shown from below; see also [3, 4]. [1]');
  });
});
