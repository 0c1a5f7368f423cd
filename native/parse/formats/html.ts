import { parseDocument } from 'htmlparser2';
import { EngineError, type AdmonitionKind, type ParsedDocument } from '../../contract/index.js';
import { DocBuilder, oneLine } from '../builder.js';
import { admonitionKind, admonitionText, matchAdmonition } from '../text-utils.js';
import type { TextAdapterInput } from './types.js';
import { firstRowIsHeader } from '../table-header.js';

/** The parts of domhandler's node shape this walker reads. */
interface HNode {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: HNode[];
  data?: string;
}

const SKIP = new Set([
  'script', 'style', 'nav', 'noscript', 'template', 'head', 'svg', 'math', 'button', 'select', 'textarea',
  'iframe', 'object', 'embed', 'canvas', 'map', 'img', 'input',
]);
const HEADING_RE = /^h([1-6])$/;
const NAV_CLASS_RE = /(?:^|[\s_-])(?:side)?(?:nav|navbar|navigation|menu|breadcrumbs?|toc|sidebar)(?:$|[\s_-])/i;
const ADMONITION_WORDS = new Set(['warning', 'caution', 'danger', 'note', 'tip', 'important', 'notice', 'attention']);
const GENERIC_ADMONITION = new Set(['admonition', 'admonitionblock', 'alert', 'callout']);
const BLOCKISH = new Set(['div', 'section', 'aside', 'p', 'blockquote', 'table', 'article', 'dl']);

/**
 * Deeper element nesting than any real page has. Deeper files are refused before parsing: htmlparser2
 * slows down sharply with depth (about 17 s for 100,000 levels) and walking such a tree overflows the stack.
 */
export const MAX_HTML_DEPTH = 1000;

/** Elements that never hold children, and those whose end tag may be left out (they do not nest). */
const NO_NESTING = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
  'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'thead', 'tbody', 'tfoot', 'colgroup', 'rt', 'rp',
]);

/** How deep start tags nest, counted on the raw text (cheap, linear, close enough to refuse hostile files). */
export function htmlNestingDepth(html: string): number {
  const re = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)(?:\s[^>]*)?>/g;
  let depth = 0;
  let max = 0;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const name = (m[2] as string).toLowerCase();
    if (NO_NESTING.has(name) || m[0].endsWith('/>')) continue;
    if (m[1]) depth = Math.max(0, depth - 1);
    else if (++depth > max) max = depth;
  }
  return max;
}

function assertNesting(html: string): void {
  const depth = htmlNestingDepth(html);
  if (depth > MAX_HTML_DEPTH) {
    throw new EngineError(
      'FILE_UNREADABLE',
      `This HTML file nests elements ${depth.toLocaleString('en-US')} levels deep (more than ${MAX_HTML_DEPTH.toLocaleString('en-US')}, which no manual page needs); it is generated or damaged. Open it in a browser and save or print it as PDF, and add that instead.`,
    );
  }
}

/** HTML via htmlparser2: headings, paragraphs, lists, tables, definition lists, code, admonitions. */
export function parseHtml({ text, fileStem }: TextAdapterInput, format = 'html', opts: { firstRowIsHeader?: boolean } = {}): ParsedDocument {
  assertNesting(text);
  const b = new DocBuilder(format);
  const root = parseDocument(text, { decodeEntities: true, lowerCaseTags: true }) as unknown as HNode;
  const meta: ParsedDocument['meta'] = {};
  const htmlEl = findFirst(root, (n) => n.name === 'html');
  const lang = htmlEl?.attribs?.lang ?? '';
  if (/^en\b/i.test(lang)) meta.language = 'en';
  else if (/^zh\b/i.test(lang)) meta.language = 'zh';
  walkHtmlNodes(root.children ?? [], b, { tableName: fileStem, firstRowIsHeader: opts.firstRowIsHeader });
  const h1 = b.blocks.find((x) => x.kind === 'heading' && x.level === 1);
  const titleEl = findFirst(root, (n) => n.name === 'title');
  const title = h1?.text ?? (titleEl ? oneLine(textOf(titleEl)) : '');
  if (title) meta.title = title;
  return b.finish(meta);
}

/** Walks an HTML fragment into an existing builder (used for HTML blocks inside Markdown). */
export function walkHtml(html: string, b: DocBuilder, opts: { tableName: string }): void {
  assertNesting(html);
  const root = parseDocument(html, { decodeEntities: true, lowerCaseTags: true }) as unknown as HNode;
  walkHtmlNodes(root.children ?? [], b, opts);
}

function walkHtmlNodes(nodes: HNode[], b: DocBuilder, opts: { tableName: string; firstRowIsHeader?: boolean | undefined }): void {
  const w = new Walker(b, opts.tableName, opts.firstRowIsHeader ?? false);
  w.children(nodes);
  w.flush();
}

class Walker {
  private pending = '';

  constructor(
    private readonly b: DocBuilder,
    private readonly tableName: string,
    /** Tables without th cells take their first row as the header (DOCX tables via mammoth). */
    private readonly firstRowIsHeader: boolean,
  ) {}

  children(nodes: HNode[] | undefined): void {
    for (const n of nodes ?? []) this.node(n);
  }

  flush(): void {
    const text = this.pending;
    this.pending = '';
    if (text.trim()) this.paragraph(text);
  }

  private paragraph(raw: string): void {
    const text = oneLine(raw);
    const m = matchAdmonition(text);
    if (m) this.b.admonition(m.kind, admonitionText(m.label, m.body));
    else this.b.add('paragraph', text);
  }

  private node(n: HNode): void {
    if (n.type === 'text') {
      this.pending += n.data ?? '';
      return;
    }
    if (n.type === 'cdata') {
      this.children(n.children);
      return;
    }
    if (n.type !== 'tag' && n.type !== 'script' && n.type !== 'style') return;
    const name = n.name ?? '';
    if (SKIP.has(name) || isNavigation(n)) return;
    if (name === 'br') {
      this.pending += '\n';
      return;
    }
    const admonition = BLOCKISH.has(name) ? admonitionOf(n) : null;
    if (admonition) {
      this.flush();
      this.admonition(n, admonition);
      return;
    }
    const h = HEADING_RE.exec(name);
    if (h) {
      this.flush();
      this.b.heading(Number(h[1]), oneLine(textOf(n)));
      return;
    }
    switch (name) {
      case 'p':
        this.flush();
        this.pending = textOf(n);
        this.flush();
        return;
      case 'pre':
        this.flush();
        this.b.code(textOf(n, true), codeLanguage(n));
        return;
      case 'ul':
      case 'ol':
      case 'menu':
        this.flush();
        this.list(n);
        return;
      case 'table':
        this.flush();
        this.table(n);
        return;
      case 'dl':
        this.flush();
        this.dl(n);
        return;
      case 'hr':
        this.flush();
        return;
      default:
        if (isBlockContainer(name)) {
          this.flush();
          this.children(n.children);
          this.flush();
        } else {
          this.children(n.children);
        }
    }
  }

  private admonition(n: HNode, kind: AdmonitionKind): void {
    const titleEl = findFirst(n, (c) => hasClass(c, 'title') || hasClass(c, 'admonition-title'));
    const label = titleEl ? oneLine(textOf(titleEl)) : '';
    const body = oneLine(textOf(n, false, titleEl));
    // `<p class="note">Note: …</p>`: the text already starts with its label; keep it as written.
    const inline = !label ? matchAdmonition(body) : null;
    if (inline) {
      this.b.admonition(kind, admonitionText(inline.label, inline.body));
      return;
    }
    const useLabel = label && admonitionKind(label) ? label : kind;
    const bodyWithTitle = label && !admonitionKind(label) ? `${label}\n${body}` : body;
    this.b.admonition(kind, admonitionText(useLabel, bodyWithTitle));
  }

  private list(n: HNode): void {
    const ordered = n.name === 'ol';
    let num = Number.parseInt(n.attribs?.start ?? '1', 10);
    if (!Number.isFinite(num)) num = 1;
    for (const li of n.children ?? []) {
      if (li.type !== 'tag') continue;
      if (li.name !== 'li') {
        if (li.name === 'ul' || li.name === 'ol') this.list(li);
        continue;
      }
      const value = Number.parseInt(li.attribs?.value ?? '', 10);
      if (Number.isFinite(value)) num = value;
      const nested = (li.children ?? []).filter((c) => isBlockChild(c));
      const own = oneLine(textOf(li, false, undefined, true));
      if (ordered) this.b.add('step', own, { stepNumber: num });
      else {
        const m = matchAdmonition(own);
        if (m) this.b.admonition(m.kind, admonitionText(m.label, m.body));
        else this.b.add('list-item', own);
      }
      num++;
      for (const c of nested) this.node(c);
      this.flush();
    }
  }

  private table(n: HNode): void {
    const caption = findChild(n, 'caption');
    const name = (caption && oneLine(textOf(caption))) || this.b.currentHeading || this.tableName;
    const rows: { cells: string[]; header: boolean }[] = [];
    const collect = (parent: HNode, inHead: boolean): void => {
      for (const c of parent.children ?? []) {
        if (c.type !== 'tag') continue;
        if (c.name === 'thead') collect(c, true);
        else if (c.name === 'tbody' || c.name === 'tfoot') collect(c, false);
        else if (c.name === 'tr') {
          const cells: string[] = [];
          let allTh = true;
          let any = false;
          for (const cell of c.children ?? []) {
            if (cell.type !== 'tag' || (cell.name !== 'td' && cell.name !== 'th')) continue;
            any = true;
            if (cell.name !== 'th') allTh = false;
            cells.push(oneLine(textOf(cell)));
            const span = Math.min(Number.parseInt(cell.attribs?.colspan ?? '1', 10) || 1, 50);
            for (let k = 1; k < span; k++) cells.push('');
          }
          if (any) rows.push({ cells, header: inHead || allTh });
        }
      }
    };
    collect(n, false);
    const first = rows[0];
    // A header row of <td> cells (no <th>, no <thead>) is still the header when its cells are header words.
    if (first && !rows.some((r) => r.header) && (this.firstRowIsHeader || firstRowIsHeader(rows.map((r) => r.cells)))) first.header = true;
    let columns: string[] = [];
    for (const row of rows) {
      if (row.header) columns = row.cells;
      else this.b.row(name, columns, row.cells);
    }
  }

  private dl(n: HNode): void {
    let terms: string[] = [];
    let lastWasDd = false;
    for (const c of n.children ?? []) {
      if (c.type !== 'tag') continue;
      if (c.name === 'div') {
        this.dl(c);
        continue;
      }
      if (c.name === 'dt') {
        if (lastWasDd) terms = [];
        terms.push(oneLine(textOf(c)));
        lastWasDd = false;
      } else if (c.name === 'dd') {
        const text = oneLine(textOf(c));
        const term = terms.filter(Boolean).join(', ');
        if (term) this.b.add('definition', text || term, { term });
        else this.b.add('paragraph', text);
        lastWasDd = true;
      }
    }
    if (!lastWasDd && terms.length) this.b.add('paragraph', terms.join(', '));
  }
}

function isBlockContainer(name: string): boolean {
  return /^(?:div|section|article|main|body|html|header|footer|aside|figure|figcaption|center|details|summary|form|fieldset|address|caption|blockquote|li|dd|dt|td|th|tr|tbody|thead|tfoot|legend|hgroup)$/.test(
    name,
  );
}

function isBlockChild(n: HNode): boolean {
  return n.type === 'tag' && /^(?:ul|ol|menu|table|pre|dl|div|p|blockquote|h[1-6])$/.test(n.name ?? '');
}

function hasClass(n: HNode, cls: string): boolean {
  return n.type === 'tag' && (n.attribs?.class ?? '').split(/\s+/).includes(cls);
}

function isNavigation(n: HNode): boolean {
  if (n.attribs?.role === 'navigation') return true;
  const cls = n.attribs?.class;
  return !!cls && (n.name === 'div' || n.name === 'ul' || n.name === 'aside') && NAV_CLASS_RE.test(cls);
}

function admonitionOf(n: HNode): AdmonitionKind | null {
  const cls = n.attribs?.class;
  if (!cls) return null;
  let generic = false;
  for (const token of cls.toLowerCase().split(/\s+/)) {
    for (const part of token.split(/[-_]/)) {
      if (ADMONITION_WORDS.has(part)) return admonitionKind(part);
      if (GENERIC_ADMONITION.has(part)) generic = true;
    }
  }
  return generic ? 'NOTE' : null;
}

function findChild(n: HNode, name: string): HNode | undefined {
  return (n.children ?? []).find((c) => c.type === 'tag' && c.name === name);
}

function findFirst(n: HNode, pred: (n: HNode) => boolean): HNode | undefined {
  for (const c of n.children ?? []) {
    if (c.type !== 'tag' && c.type !== 'root') continue;
    if (pred(c)) return c;
    const found = findFirst(c, pred);
    if (found) return found;
  }
  return undefined;
}

/** The language a `<pre>` names: its own or its `<code>` child's `language-x` (or `lang-x`) class. */
function codeLanguage(pre: HNode): string | null {
  const classes = [pre, ...(pre.children ?? []).filter((c) => c.name === 'code')].map((e) => e.attribs?.class ?? '').join(' ');
  return /(?:^|\s)lang(?:uage)?-([\w+#.-]+)/.exec(classes)?.[1] ?? null;
}

/**
 * Text content of an element. Block-level descendants start new lines; `pre` keeps whitespace;
 * `exclude` skips one descendant (an admonition's title); `ownOnly` skips nested lists/blocks.
 */
function textOf(n: HNode, pre = false, exclude?: HNode, ownOnly = false): string {
  let out = '';
  const visit = (node: HNode, top: boolean): void => {
    if (node === exclude) return;
    if (node.type === 'text') {
      out += node.data ?? '';
      return;
    }
    if (node.type !== 'tag' && node.type !== 'cdata') return;
    const name = node.name ?? '';
    if (SKIP.has(name)) return;
    if (name === 'br') {
      out += '\n';
      return;
    }
    if (ownOnly && !top && isBlockChild(node)) return;
    const block = !pre && /^(?:p|div|li|tr|h[1-6]|dt|dd|pre|blockquote|table|ul|ol|dl|section)$/.test(name);
    if (block) out += '\n';
    for (const c of node.children ?? []) visit(c, false);
    if (block) out += '\n';
    else if (name === 'td' || name === 'th') out += ' ';
  };
  visit(n, true);
  return pre ? out : out.replace(/[ \t\r]*\n[ \t\r]*/g, '\n').replace(/[ \t\r]+/g, ' ');
}
