/**
 * Issue 37 item 5: text formats had no size cap and no nesting limit. A Markdown list nested 5,000
 * deep aborted V8 (the whole run lost, the good file beside it included); a flat 400 MB .md too.
 * Now each such file costs its report line (FILE_UNREADABLE naming the cap and its setting) and the
 * good file of the same run is indexed and searchable.
 *
 * Cases, in one ingest run with a good file: a Markdown list nested 5,000 deep (2.5 MB; markers on
 * a line and by indentation), Markdown block quotes nested 5,000 deep, an RST file indented 2,000
 * levels (the reader recursed per level: 84 s and a stack overflow for 3,000), AsciiDoc delimited
 * blocks nested 300 deep, a YAML mapping indented 2,000 levels, DOCX tables nested 5,000 deep (a
 * clear message, no longer "Maximum call stack size exceeded"), and a text and a flat Markdown file
 * over their size caps (both caps lowered to 3 MB for the test through their settings). Legit
 * nesting (a 6-level list, deeply indented fenced code) is read.
 * Deep HTML and JSON are in bad-inputs.test.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestReport } from '../../native/contract/api.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { asciidocNestingDepth, indentNestingDepth, markdownNestingDepth } from '../../native/parse/nesting.js';
import { makeDocx } from './bad-input-cases.js';
import { expectClear, tempDirs, value, write } from './helpers.js';

const tempDir = tempDirs('parsecaps');

/** 5,000 list levels: 500 lines, each 10 markers deeper than the line before (2.5 MB). */
function deepList(levels: number): string {
  const perLine = 10;
  let out = '';
  for (let i = 0; i < levels / perLine; i++) out += ' '.repeat(2 * perLine * i) + '- '.repeat(perLine) + `deeplistword ${i}\n`;
  return out;
}

function deepQuotes(levels: number): string {
  let out = '';
  for (let i = 1; i <= levels; i += 50) out += `${'>'.repeat(i)} deepquoteword ${i}\n`;
  return out + `${'> '.repeat(levels)}deepquoteword\n`;
}

function deepRst(levels: number): string {
  let out = 'Title\n=====\n\n';
  for (let i = 0; i < levels; i++) out += `${' '.repeat(i)}deeprstword ${i}\n\n`;
  return out;
}

/** A YAML mapping nested 2,000 levels by indentation (the reader overflowed its stack: "syntax error"). */
function deepYaml(levels: number): string {
  let out = 'title: Deep\nx:\n';
  for (let i = 1; i < levels; i++) out += `${' '.repeat(i)}k${i}:\n`;
  return out;
}

function deepAsciidoc(levels: number): string {
  const delim = (i: number) => (i % 2 ? '=' : '*').repeat(4 + i);
  let out = '= Deep\n\n';
  for (let i = 0; i < levels; i++) out += `${delim(i)}\n`;
  out += 'deepadocword\n';
  for (let i = levels - 1; i >= 0; i--) out += `${delim(i)}\n`;
  return out;
}

const GOOD = `# Pump manual

Check the goodpumpword valve before start.

- level 1
  - level 2
    - level 3
      - level 4
        - level 5
          - level 6 nestedgoodword

\`\`\`
${Array.from({ length: 80 }, (_, i) => `${' '.repeat(2 * i)}- config ${i}`).join('\n')}
\`\`\`
`;

/** Tables nested 5,000 deep in a 2 kB DOCX (mammoth recurses per level: "Maximum call stack size exceeded"). */
function deepDocx(levels: number): Buffer {
  const deep = '<w:tbl><w:tr><w:tc>'.repeat(levels) + '<w:p/>' + '</w:tc></w:tr></w:tbl>'.repeat(levels);
  return makeDocx([`deepdocxword</w:t></w:r></w:p>${deep}<w:p><w:r><w:t>end`]);
}

const REFUSED: { file: string; make: () => string | Buffer; message: RegExp }[] = [
  { file: 'deep.docx', make: () => deepDocx(5000), message: /nests deeper than any manual/ },
  { file: 'deep-list.md', make: () => deepList(5000), message: /5000 levels deep.*MANUALDESK_MAX_NESTING/s },
  { file: 'deep-quote.md', make: () => deepQuotes(5000), message: /5000 levels deep.*MANUALDESK_MAX_NESTING/s },
  { file: 'deep.rst', make: () => deepRst(2000), message: /levels deep.*MANUALDESK_MAX_NESTING/s },
  { file: 'deep.adoc', make: () => deepAsciidoc(300), message: /300 levels deep.*MANUALDESK_MAX_NESTING/s },
  { file: 'deep.yaml', make: () => deepYaml(2000), message: /levels deep.*MANUALDESK_MAX_NESTING/s },
  { file: 'big.md', make: () => '# Flat\n\nbigmarkdownword filler paragraph of a long manual\n\n'.repeat(70_000), message: /4 MB of markup.*MANUALDESK_MAX_MARKUP_MB/s },
  { file: 'big.txt', make: () => 'bigtextword filler line of a very long text file\n'.repeat(84_000), message: /4 MB of text.*MANUALDESK_MAX_TEXT_MB/s },
];

describe('issue 37 item 5: caps of the text formats', () => {
  let engine: Engine;
  let report: IngestReport;
  const saved = { text: process.env.MANUALDESK_MAX_TEXT_MB, markup: process.env.MANUALDESK_MAX_MARKUP_MB };

  beforeAll(async () => {
    // big.txt and big.md (4 MB) are over, the others are not
    process.env.MANUALDESK_MAX_TEXT_MB = '3';
    process.env.MANUALDESK_MAX_MARKUP_MB = '3';
    const src = path.join(tempDir('src'), 'manuals');
    write(src, 'good.md', GOOD);
    for (const c of REFUSED) write(src, c.file, c.make());
    engine = await createEngine({ libraryDir: path.join(tempDir('lib'), 'library'), embedder: { kind: 'none' }, create: true });
    // Before: the deep list alone takes minutes and gigabytes, 5,000 levels abort the process.
    report = value(await engine.ingest({ paths: [src] }));
  }, 60_000);

  afterAll(async () => {
    for (const [name, was] of [['MANUALDESK_MAX_TEXT_MB', saved.text], ['MANUALDESK_MAX_MARKUP_MB', saved.markup]] as const) {
      if (was === undefined) delete process.env[name];
      else process.env[name] = was;
    }
    await engine?.close();
  });

  it('the good file beside the hostile ones is indexed and searchable, legit nesting included', async () => {
    expect(value(await engine.listManuals()).map((m) => m.file)).toEqual(['good.md']);
    for (const word of ['goodpumpword', 'nestedgoodword']) {
      expect(value(await engine.search({ query: word, k: 5 })).hits.map((h) => h.file)).toContain('good.md');
    }
    expect(report.skipped.map((s) => s.file).sort()).toEqual(REFUSED.map((c) => c.file).sort());
  });

  it.each(REFUSED)('$file costs one report line with a clear code and the cap to raise', ({ file, message }) => {
    const lines = report.skipped.filter((s) => s.file === file);
    expect(lines).toHaveLength(1);
    const s = lines[0] as (typeof lines)[number];
    expectClear({ code: s.code ?? 'INTERNAL', message: s.reason }, 'FILE_UNREADABLE');
    expect(s.reason).toMatch(message);
  });
});

describe('nesting measures (linear pre-scans)', () => {
  it('Markdown: lists by indentation and by markers on a line, quotes; fenced code not looked into', () => {
    expect(markdownNestingDepth('- a\n  - b\n    - c\n- d\n')).toBe(3);
    expect(markdownNestingDepth('- - - x\n')).toBe(3);
    expect(markdownNestingDepth('> - a\n>   - b\n')).toBe(3);
    expect(markdownNestingDepth('```\n- a\n  - b\n    - c\n```\n- x\n')).toBe(1);
    // A lazy paragraph line closes nothing: the nesting it hides still counts.
    expect(markdownNestingDepth('- a\n  - b\nlazy\n    - c\n')).toBe(3);
    // A fence inside a list item ends with the item.
    expect(markdownNestingDepth('- ```\nout\n' + deepList(100))).toBe(100);
  });

  it('RST and YAML count indentation levels; AsciiDoc counts open delimited blocks', () => {
    expect(indentNestingDepth('para\n\n  quote\n\n    deeper\n\n  back\n\nnone\n')).toBe(2);
    expect(asciidocNestingDepth('====\n*****\n----\n====\n----\n*****\n====\n')).toBe(3);
    expect(asciidocNestingDepth('====\n****\n====\n')).toBe(2); // the inner ==== closes the outer block
    expect(asciidocNestingDepth(deepAsciidoc(300))).toBe(300);
  });
});
