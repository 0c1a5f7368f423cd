import { LoggerManager, NullLogger, load } from '@asciidoctor/core';
import type { AdmonitionKind, ParsedDocument } from '../../contract/index.js';
import { DocBuilder, normalizeInline, oneLine } from '../builder.js';
import { admonitionKind, admonitionText, checkAbort, htmlToText } from '../text-utils.js';
import { assertNesting, parseLimits } from '../limits.js';
import { asciidocNestingDepth } from '../nesting.js';
import type { TextAdapterInput } from './types.js';
import { firstRowIsHeader } from '../table-header.js';

/** The parts of Asciidoctor.js's node API this walker uses (its published types are loose). */
interface ANode {
  getContext(): string;
  getStyle(): string | undefined;
  getTitle(): string | null;
  getBlocks(): ANode[];
  getAttribute(name: string, defaultValue?: unknown): unknown;
  getContent(): Promise<unknown>;
  getSource?(): string;
  getLevel?(): number | null;
  getText?(): string | null;
  getItems?(): unknown[];
  getContentModel?(): string;
  getInnerDocument?(): ANode | null;
  rows?: { head: ACell[][]; body: ACell[][]; foot: ACell[][] };
}
interface ACell {
  getText(): string | null;
  getStyle?(): string | undefined;
  getInnerDocument?(): ANode | null;
}

/**
 * Asciidoctor.js's per-call `logger` option runs the load inside an AsyncLocalStorage context, which
 * turns on promise hooks for the whole process and makes every await several times slower. Its
 * messages (section level jumps, missing attributes) are of no use to a technician, so silence
 * the process-wide logger once instead.
 */
let loggerSilenced = false;
function silenceAsciidoctor(): void {
  if (loggerSilenced) return;
  LoggerManager.logger = new NullLogger();
  loggerSilenced = true;
}

/** Include directives are never resolved: each file of a manual set is ingested on its own. */
const INCLUDE_RE = /^include::[^\n[]*\[[^\n]*\][ \t]*$/gm;

/**
 * AsciiDoc via Asciidoctor.js in secure mode (no includes, no URI reads), walking the parsed
 * document: sections, paragraphs, lists, admonitions, tables, listings and description lists.
 */
export async function parseAsciidoc({ text, fileStem, signal, limits = parseLimits(), name = 'This AsciiDoc file' }: TextAdapterInput): Promise<ParsedDocument> {
  const b = new DocBuilder('asciidoc');
  const src = text.replace(INCLUDE_RE, '');
  assertNesting(name, 'delimited blocks', asciidocNestingDepth(src), limits);
  silenceAsciidoctor();
  const options = { safe: 'secure', attributes: { 'allow-uri-read': null, 'skip-front-matter': '' } };
  const doc = (await load(src, options)) as unknown as ANode & { getDoctitle(opts?: object): unknown };
  checkAbort(signal);
  const meta: ParsedDocument['meta'] = {};
  const doctitle = doc.getDoctitle({ sanitize: true });
  const title = typeof doctitle === 'string' ? plain(doctitle) : '';
  if (title) {
    meta.title = title;
    b.heading(1, title);
  }
  const lang = String(doc.getAttribute('lang', '') ?? '');
  if (/^en\b/i.test(lang)) meta.language = 'en';
  else if (/^zh\b/i.test(lang)) meta.language = 'zh';
  const w = new Walker(b, fileStem, title ? 1 : 0, signal);
  await w.blocks(doc.getBlocks());
  return b.finish(meta);
}

/** Converted inline HTML → plain text; undoes the typographic replacements of plain ASCII. */
function plain(html: string | null | undefined): string {
  if (!html) return '';
  return normalizeInline(htmlToText(html).replace(/\u2019/g, "'").replace(/\u2014\u200b?/g, ' -- ').replace(/\u2026\u200b?/g, '...'));
}

class Walker {
  private count = 0;

  constructor(
    private readonly b: DocBuilder,
    private readonly fileStem: string,
    private readonly levelOffset: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async blocks(nodes: ANode[]): Promise<void> {
    for (const n of nodes) await this.node(n);
  }

  private async node(n: ANode): Promise<void> {
    if (++this.count % 200 === 0) checkAbort(this.signal);
    const ctx = n.getContext();
    switch (ctx) {
      case 'section':
        this.b.heading((n.getLevel?.() ?? 1) + this.levelOffset, plain(n.getTitle()));
        await this.blocks(n.getBlocks());
        return;
      case 'floating_title':
        this.b.heading((n.getLevel?.() ?? 1) + this.levelOffset, plain(n.getTitle()));
        return;
      case 'preamble':
      case 'open':
      case 'example':
      case 'sidebar':
      case 'quote':
        this.title(n);
        if (n.getContentModel?.() === 'compound') await this.blocks(n.getBlocks());
        else this.b.add('paragraph', oneLine(plain(String((await n.getContent()) ?? ''))));
        return;
      case 'paragraph':
      case 'verse':
        this.title(n);
        this.b.add('paragraph', oneLine(plain(String((await n.getContent()) ?? ''))));
        return;
      case 'admonition':
        await this.admonition(n);
        return;
      case 'listing':
      case 'literal':
        this.title(n);
        this.b.code(n.getSource?.() ?? '', String(n.getAttribute('language', '') ?? ''));
        return;
      case 'olist':
      case 'ulist':
      case 'colist':
        this.title(n);
        await this.list(n, ctx === 'olist');
        return;
      case 'dlist':
        this.title(n);
        await this.dlist(n);
        return;
      case 'table':
        await this.table(n);
        return;
      default:
        // image, video, audio, toc, page_break, thematic_break, pass, stem: no searchable text
        return;
    }
  }

  /** A block title (".Procedure") becomes a short paragraph before the block. */
  private title(n: ANode): void {
    const t = plain(n.getTitle());
    if (t) this.b.add('paragraph', t);
  }

  private async admonition(n: ANode): Promise<void> {
    const style = String(n.getAttribute('name', '') || n.getStyle() || 'note');
    const kind: AdmonitionKind = admonitionKind(style) ?? 'NOTE';
    const parts: string[] = [];
    const t = plain(n.getTitle());
    if (t) parts.push(t);
    if (n.getContentModel?.() === 'compound') parts.push(await this.textOf(n.getBlocks()));
    else parts.push(plain(String((await n.getContent()) ?? '')));
    this.b.admonition(kind, admonitionText(kind, oneLine(parts.filter(Boolean).join('\n'))));
  }

  private async list(n: ANode, ordered: boolean): Promise<void> {
    const start = Number.parseInt(String(n.getAttribute('start', '1') ?? '1'), 10);
    let num = Number.isFinite(start) ? start : 1;
    for (const item of (n.getItems?.() ?? []) as ANode[]) {
      const text = oneLine(plain(item.getText?.()));
      if (ordered) this.b.add('step', text, { stepNumber: num++ });
      else this.b.add('list-item', text);
      await this.blocks(item.getBlocks());
    }
  }

  private async dlist(n: ANode): Promise<void> {
    for (const entry of (n.getItems?.() ?? []) as [ANode[], ANode | null][]) {
      const [terms, desc] = entry;
      const term = terms.map((t) => oneLine(plain(t.getText?.()))).filter(Boolean).join(', ');
      const descText = desc ? oneLine(plain(desc.getText?.())) : '';
      if (term) this.b.add('definition', descText || term, { term });
      else if (descText) this.b.add('paragraph', descText);
      if (desc) await this.blocks(desc.getBlocks());
    }
  }

  private async table(n: ANode): Promise<void> {
    const rows = n.rows;
    if (!rows) return;
    const name = plain(n.getTitle()) || this.b.currentHeading || this.fileStem;
    const cellText = async (c: ACell): Promise<string> => {
      const inner = c.getStyle?.() === 'asciidoc' ? c.getInnerDocument?.() : null;
      if (inner) return oneLine(await this.textOf(inner.getBlocks()));
      return oneLine(plain(c.getText()));
    };
    let columns: string[] = [];
    const head = rows.head[0];
    if (head) columns = await Promise.all(head.map(cellText));
    let body = await Promise.all([...rows.body, ...rows.foot].map((row) => Promise.all(row.map(cellText))));
    // A header row without the blank line (or `options="header"`) that marks it is still the header.
    if (!head && firstRowIsHeader(body)) [columns, body] = [body[0] as string[], body.slice(1)];
    for (const cells of body) this.b.row(name, columns, cells);
  }

  /** Plain text of nested blocks (compound admonitions, AsciiDoc table cells). */
  private async textOf(nodes: ANode[]): Promise<string> {
    const parts: string[] = [];
    for (const n of nodes) {
      const ctx = n.getContext();
      if (ctx === 'listing' || ctx === 'literal') parts.push(n.getSource?.() ?? '');
      else if (ctx === 'olist' || ctx === 'ulist' || ctx === 'colist') {
        for (const item of (n.getItems?.() ?? []) as ANode[]) {
          parts.push(plain(item.getText?.()));
          if (item.getBlocks().length) parts.push(await this.textOf(item.getBlocks()));
        }
      } else if (ctx === 'dlist') {
        for (const [terms, desc] of (n.getItems?.() ?? []) as [ANode[], ANode | null][]) {
          parts.push(`${terms.map((t) => plain(t.getText?.())).join(', ')}: ${desc ? plain(desc.getText?.()) : ''}`);
        }
      } else if (n.getContentModel?.() === 'compound') parts.push(await this.textOf(n.getBlocks()));
      else if (ctx !== 'image' && ctx !== 'table') parts.push(plain(String((await n.getContent()) ?? '')));
    }
    return parts.filter(Boolean).join('\n');
  }
}
