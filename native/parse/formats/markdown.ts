import { Lexer, type Token, type Tokens } from 'marked';
import { parse as parseYaml } from 'yaml';
import type { AdmonitionKind, ParsedDocument } from '../../contract/index.js';
import { DocBuilder, normalizeInline, oneLine } from '../builder.js';
import { WRITTEN_LABEL } from '../../text/labels.js';
import { admonitionKind, admonitionText, htmlToText, matchAdmonition } from '../text-utils.js';
import { assertNesting, parseLimits } from '../limits.js';
import { markdownNestingDepth } from '../nesting.js';
import { walkHtml } from './html.js';
import { parseYamlDoc } from './structured.js';
import type { TextAdapterInput } from './types.js';

const FRONT_MATTER_RE = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\s*(?:\r?\n|$)/;
const MKDOCS_ADMONITION_RE = /^(?:!!!|\?\?\?\+?)\s*([A-Za-z]+)(?:\s+"([^"]*)")?[^\n]*(?:\n([\s\S]*))?$/;
const GFM_ALERT_RE = /^\s*\[!([A-Za-z]+)\]\s*(?:\n|$)/;
/**
 * A heading's attribute list (Pandoc, kramdown, MkDocs attr_list, Wiki.js): `## Windows {#win}`,
 * `# Setup {.tabset}`, `## Linux {#linux .tab lang=en}`. Markup, not words of the heading.
 */
const ATTRIBUTE_LIST_RE = /\s*\{\s*(?:[#.][\w-]+|[\w-]+=(?:"[^"]*"|[^\s}]+))(?:\s+(?:[#.][\w-]+|[\w-]+=(?:"[^"]*"|[^\s}]+)))*\s*\}\s*$/;
const IMAGE_SIZE_RE = /(!\[[^\]\n]*\]\([^)\s]+)\s+=\d*x\d*\)/g;
/** Wiki.js closes a callout with its class on the quote's last line: `> Be careful…` then `{.is-warning}`. */
const WIKIJS_CALLOUT_RE = /\{\.is-(info|success|warning|danger)\}\s*$/;
const WIKIJS_CALLOUTS = { info: 'NOTE', success: 'TIP', warning: 'WARNING', danger: 'DANGER' } as const satisfies Record<string, AdmonitionKind>;
/** A content tab of MkDocs Material (pymdownx.tabbed): `=== "Python"`, its body indented below. */
const MKDOCS_TAB_RE = /^===\+?[ \t]+"([^"\n]*)"[ \t]*(?:\n([\s\S]*))?$/;

/** Jekyll's Liquid tags: `{% alert warning %}…{% endalert %}`, and a tag alone on its line (`{% include x.html %}`). */
const LIQUID_ALERT_RE = /\{%-?\s*alert\s+([A-Za-z]+)\s*-?%\}([\s\S]*?)\{%-?\s*endalert\s*-?%\}/g;
const LIQUID_LINE_RE = /^[ \t]*\{%-?[^%\n]*-?%\}[ \t]*$/gm;
/**
 * kramdown's attribute lists (Jekyll's Markdown): `{: .floater}` after an image or a paragraph, `{:#id}`,
 * `{: width="50%"}`, `{:toc}`. They style the page; no parser but kramdown reads them, so they stood in the text.
 */
const IAL_ITEM = String.raw`(?:[.#][A-Za-z][\w-]*|[A-Za-z][\w-]*=(?:"[^"\n]*"|'[^'\n]*'|[^\s}]+))`;
const KRAMDOWN_IAL_RE = new RegExp(String.raw`\{:[ \t]*(?:${IAL_ITEM}(?:[ \t]+${IAL_ITEM})*|toc)[ \t]*\}`, 'g');
/** An inline code span, whose text is code (`{:x}` is a format string there). */
const CODE_SPAN_RE = /`[^`\n]*`/g;

function withoutAttributeLists(text: string): string {
  if (!text.includes('{:')) return text;
  let out = '';
  let last = 0;
  for (const m of text.matchAll(CODE_SPAN_RE)) {
    out += text.slice(last, m.index).replace(KRAMDOWN_IAL_RE, '') + m[0];
    last = (m.index ?? 0) + m[0].length;
  }
  return out + text.slice(last).replace(KRAMDOWN_IAL_RE, '');
}
/** A fenced code block (``` or ~~~), whose text is shown as written (a template's own tags included). */
const FENCE_RE = /^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[ \t]*$/gm;

/**
 * A documentation site built with Jekyll writes its notes as Liquid tags, which no Markdown parser
 * reads: `{% alert warning %}…{% endalert %}` is the site's warning box, read as the GFM alert it is
 * (`> [!WARNING]`, so its text is a safety notice), and a tag alone on its line is template markup,
 * dropped; kramdown's attribute lists are dropped wherever they stand. Code blocks are left as written
 * (Klipper's macros are Jinja: `{% if … %}`, Rust's `{:?}`), and so is a Liquid tag inside a sentence.
 */
export function jekyllToMarkdown(src: string): string {
  if (!src.includes('{%') && !src.includes('{:')) return src;
  const out: string[] = [];
  let last = 0;
  const prose = (text: string) =>
    withoutAttributeLists(text)
      .replace(LIQUID_ALERT_RE, (_m, kind: string, body: string) => {
        const lines = body.trim().split('\n').map((l) => `> ${l.trim()}`);
        return admonitionKind(kind) ? `\n> [!${kind.toUpperCase()}]\n${lines.join('\n')}\n` : `\n${body.trim()}\n`;
      })
      .replace(LIQUID_LINE_RE, '');
  for (const m of src.matchAll(FENCE_RE)) {
    out.push(prose(src.slice(last, m.index)), m[0]);
    last = (m.index ?? 0) + m[0].length;
  }
  out.push(prose(src.slice(last)));
  return out.join('');
}

/** Markdown via marked's lexer (GFM): headings, paragraphs, lists, code, tables, admonitions. */
export function parseMarkdown({ text, fileStem, limits = parseLimits(), name = 'This Markdown file' }: TextAdapterInput): ParsedDocument {
  const b = new DocBuilder('markdown');
  const meta: ParsedDocument['meta'] = {};
  let src = text;
  const fm = FRONT_MATTER_RE.exec(src);
  if (fm) {
    src = src.slice(fm[0].length);
    readFrontMatter(fm[1] ?? '', meta);
  }
  // Wiki.js sizes an image inside its link (`![alt](img.png =x450)`), which no Markdown parser reads
  // as an image: the whole text would be a passage.
  src = src.replace(IMAGE_SIZE_RE, '$1)');
  src = jekyllToMarkdown(src);
  assertNesting(name, 'lists and block quotes', markdownNestingDepth(src), limits);
  const tokens = new Lexer({ gfm: true }).lex(src);
  const ctx: Ctx = { b, fileStem, meta };
  walk(tokens, ctx);
  const doc = b.finish(meta);
  if (fm && doc.blocks.length === 0) return frontMatterDoc(fm[1] ?? '', { text, fileStem, limits, name }) ?? doc;
  return doc;
}

/**
 * A page whose words all live in its front matter (a command reference generated from fields such as
 * title, brief, long, notes and parameters, with nothing below the closing `---`) would otherwise be
 * skipped as holding no text: its front matter is read as the YAML it is, fields as labelled rows.
 * Null when the front matter is not YAML, so the page is reported as empty as before.
 */
function frontMatterDoc(yamlText: string, input: TextAdapterInput): ParsedDocument | null {
  try {
    const doc = parseYamlDoc({ ...input, text: yamlText }, { frontMatter: true });
    return doc.blocks.length > 0 ? doc : null;
  } catch {
    return null;
  }
}

interface Ctx {
  b: DocBuilder;
  fileStem: string;
  meta: ParsedDocument['meta'];
}

function readFrontMatter(yamlText: string, meta: ParsedDocument['meta']): void {
  try {
    const data: unknown = parseYaml(yamlText, { maxAliasCount: 10 });
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const rec = data as Record<string, unknown>;
      if (typeof rec.title === 'string' && rec.title.trim()) meta.title = rec.title.trim();
      const lang = typeof rec.lang === 'string' ? rec.lang : typeof rec.language === 'string' ? rec.language : '';
      if (/^en\b/i.test(lang)) meta.language = 'en';
      else if (/^zh\b/i.test(lang)) meta.language = 'zh';
    }
  } catch {
    // Front matter that is not YAML is simply skipped.
  }
}

function walk(tokens: Token[], ctx: Ctx): void {
  const { b } = ctx;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as Token;
    switch (tok.type) {
      case 'heading': {
        const t = tok as Tokens.Heading;
        const title = oneLine(inline(t.tokens)).replace(ATTRIBUTE_LIST_RE, '');
        if (t.depth === 1 && !ctx.meta.title && title) ctx.meta.title = title;
        b.heading(t.depth, title, { raw: t.raw.trim() });
        break;
      }
      case 'paragraph': {
        const t = tok as Tokens.Paragraph;
        const tab = MKDOCS_TAB_RE.exec(t.raw.replace(/\n+$/, ''));
        if (tab) {
          // The tab's label leads in to its body, which is Markdown indented four spaces: marked reads
          // it as an indented code block (after a blank line) or as the paragraph's own lines.
          let body = dedent(tab[2] ?? '');
          const next = tokens[i + 1];
          const after = tokens[i + 2];
          if (!body.trim() && next?.type === 'space' && isIndentedCode(after)) {
            body = (after as Tokens.Code).text;
            i += 2;
          } else if (!body.trim() && isIndentedCode(next)) {
            body = (next as Tokens.Code).text;
            i += 1;
          }
          const label = oneLine(tab[1] ?? '');
          if (label) paragraph(`${label}:`, ctx);
          walk(new Lexer({ gfm: true }).lex(body), ctx);
          break;
        }
        const mk = MKDOCS_ADMONITION_RE.exec(t.text);
        const kind = mk?.[1] ? admonitionKind(mk[1]) : null;
        if (mk && kind) {
          let body = normalizeInline(stripMarkdown(mk[3] ?? ''));
          const next = tokens[i + 1];
          const after = tokens[i + 2];
          if (!body && next?.type === 'space' && after?.type === 'code' && (after as Tokens.Code).codeBlockStyle === 'indented') {
            body = normalizeInline(stripMarkdown((after as Tokens.Code).text));
            i += 2;
          } else if (!body && next?.type === 'code' && (next as Tokens.Code).codeBlockStyle === 'indented') {
            body = normalizeInline(stripMarkdown((next as Tokens.Code).text));
            i += 1;
          }
          const titled = mk[2] ? `${mk[2]}\n${body}` : body;
          b.admonition(kind, admonitionText(kind, titled));
          break;
        }
        paragraph(inline(t.tokens), ctx, inline(t.tokens, true));
        break;
      }
      case 'text': {
        const t = tok as Tokens.Text;
        paragraph(t.tokens ? inline(t.tokens) : decodeEntities(t.text), ctx);
        break;
      }
      case 'blockquote':
        blockquote(tok as Tokens.Blockquote, ctx);
        break;
      case 'list':
        list(tok as Tokens.List, ctx);
        break;
      case 'code': {
        // MyST directives (```{note}, ```{dropdown} Title) are fenced like code but are not code:
        // an admonition keeps its kind, any other directive's content is read as Markdown.
        const t = tok as Tokens.Code;
        const myst = /^\{([A-Za-z][\w-]*)\}\s*(.*)$/.exec(t.lang ?? '');
        if (myst) {
          const name = (myst[1] as string).toLowerCase();
          const kind = admonitionKind(name);
          const body = t.text.replace(/^(?::[\w-]+:.*\n)+/, '');
          if (kind) b.admonition(kind, admonitionText(kind, normalizeInline(stripMarkdown([myst[2] ?? '', body].filter(Boolean).join('\n')))));
          else if (/^(?:code|code-block|sourcecode)$/.test(name)) b.code(body, myst[2]);
          else if (!/^(?:image|figure|toctree|contents|include|literalinclude|raw|eval-rst|math|mermaid)$/.test(name)) {
            if (myst[2]) paragraph(myst[2], ctx);
            walk(new Lexer({ gfm: true }).lex(body), ctx);
          }
          break;
        }
        b.code(t.text, t.codeBlockStyle === 'indented' ? null : t.lang);
        break;
      }
      case 'table': {
        const t = tok as Tokens.Table;
        const columns = t.header.map((c) => oneLine(inline(c.tokens)));
        const name = b.currentHeading ?? ctx.fileStem;
        // Source lines: header, delimiter, then one line per row (blank lines cannot occur inside).
        const lines = t.raw.replace(/\n+$/, '').split('\n');
        const rawRows = lines.length === t.rows.length + 2 ? lines.slice(2) : [];
        t.rows.forEach((row, k) => {
          b.row(name, columns, row.map((c) => oneLine(inline(c.tokens))), { raw: rawRows[k]?.trim(), rawHeader: lines[0]?.trim() });
        });
        break;
      }
      case 'html':
        walkHtml((tok as Tokens.HTML).text, b, { tableName: b.currentHeading ?? ctx.fileStem });
        break;
      default:
        // space, hr, def (link reference definitions): nothing to keep
        break;
    }
  }
}

/**
 * A paragraph (kept as written), or an admonition when its plain text starts with a label ("WARNING: …",
 * "**Note:** …"): kept as written too when the manual writes the label with its colon, so a passage
 * quotes the manual's own line ("**WARNING: … freely.**"), else read "Label: text".
 */
function paragraph(plain: string, ctx: Ctx, asWritten = plain): void {
  const m = matchAdmonition(normalizeInline(plain));
  const written = oneLine(normalizeInline(asWritten));
  if (m) ctx.b.admonition(m.kind, WRITTEN_LABEL.test(written) ? written : admonitionText(m.label, oneLine(m.body)));
  else ctx.b.add('paragraph', written);
}

function blockquote(t: Tokens.Blockquote, ctx: Ctx): void {
  const plain = normalizeInline(blockText(t.tokens));
  let kind: AdmonitionKind | null = null;
  let label = '';
  let body = '';
  const alert = GFM_ALERT_RE.exec(t.text);
  const wiki = WIKIJS_CALLOUT_RE.exec(t.text);
  if (alert?.[1] && admonitionKind(alert[1])) {
    kind = admonitionKind(alert[1]);
    label = kind ?? '';
    body = plain.replace(/^\s*\[![A-Za-z]+\]\s*/, '');
  } else if (wiki?.[1]) {
    kind = WIKIJS_CALLOUTS[wiki[1] as keyof typeof WIKIJS_CALLOUTS];
    label = kind;
    body = plain.replace(/\s*\{\.is-[a-z]+\}\s*$/, '');
  } else {
    const m = matchAdmonition(plain);
    if (m) {
      kind = m.kind;
      label = m.label;
      body = m.body;
    }
  }
  if (kind) ctx.b.admonition(kind, admonitionText(label, body));
  else walk(t.tokens, ctx);
}

function list(t: Tokens.List, ctx: Ctx): void {
  const start = typeof t.start === 'number' ? t.start : 1;
  t.items.forEach((item, idx) => {
    const own: string[] = [];
    const written: string[] = [];
    const rest: Token[] = [];
    for (const child of item.tokens) {
      if ((child.type === 'text' || child.type === 'paragraph') && rest.length === 0) {
        const c = child as Tokens.Text | Tokens.Paragraph;
        own.push(c.tokens ? inline(c.tokens) : decodeEntities(c.text));
        written.push(c.tokens ? inline(c.tokens, true) : decodeEntities(c.text));
      } else if (child.type !== 'space' && child.type !== 'checkbox') {
        rest.push(child);
      }
    }
    const text = oneLine(own.join('\n'));
    const asWritten = oneLine(written.join('\n'));
    if (t.ordered) ctx.b.add('step', asWritten, { stepNumber: start + idx });
    else {
      const m = matchAdmonition(text);
      if (m) ctx.b.admonition(m.kind, admonitionText(m.label, m.body));
      else ctx.b.add('list-item', asWritten, { raw: ownRaw(item, rest) });
    }
    walk(rest, ctx);
  });
}

/**
 * A list item's own lines as the manual writes them, bullet included (`* 35 - *encoder fault* - …`),
 * without its nested blocks; undefined when they cannot be told apart.
 */
function ownRaw(item: Tokens.ListItem, rest: Token[]): string | undefined {
  let raw = item.raw;
  const first = rest[0];
  if (first) {
    const at = raw.indexOf(first.raw.trimStart().split('\n')[0] ?? '');
    if (at <= 0) return undefined;
    raw = raw.slice(0, at);
  }
  const out = raw.replace(/\s+$/, '').trim();
  return out || undefined;
}

/**
 * Text of inline tokens. Plain (headings, table cells): emphasis/link syntax removed, link text and
 * inline code kept. As written (`asWritten`, body text): inline code, emphasis and links keep their
 * Markdown as the manual writes them (`$5=1`, **Note:**), so a passage quotes its source exactly.
 */
function inline(tokens: Token[] | undefined, asWritten = false): string {
  if (!tokens) return '';
  let out = '';
  for (const tok of tokens) {
    switch (tok.type) {
      case 'text': {
        const t = tok as Tokens.Text;
        out += t.tokens ? inline(t.tokens, asWritten) : decodeEntities(t.text);
        break;
      }
      case 'escape':
        out += (tok as Tokens.Escape).text;
        break;
      case 'codespan':
        out += asWritten ? tok.raw : (tok as Tokens.Codespan).text;
        break;
      case 'strong':
      case 'em':
      case 'del':
      case 'link':
        out += asWritten ? rawWithoutHtml(tok) : inline((tok as Tokens.Strong).tokens);
        break;
      case 'br':
        out += '\n';
        break;
      case 'html':
        out += htmlToText((tok as Tokens.HTML).text);
        break;
      case 'image':
      case 'checkbox':
        break;
      default:
        out += 'text' in tok && typeof tok.text === 'string' ? tok.text : '';
    }
  }
  return out;
}

/**
 * A token's source with its inline HTML read as text: `**<a id="Alarm14"></a>14: Unhomed**` (a wiki's
 * link anchor inside the bold) is `**14: Unhomed**`.
 */
function rawWithoutHtml(tok: Token): string {
  let raw = tok.raw;
  for (const child of (tok as Tokens.Strong).tokens ?? []) {
    if (child.type === 'html') raw = raw.replace(child.raw, htmlToText((child as Tokens.HTML).text));
  }
  return raw;
}

/** Plain text of block tokens (inside a blockquote admonition), one line per block. */
function blockText(tokens: Token[]): string {
  const parts: string[] = [];
  for (const tok of tokens) {
    if (tok.type === 'paragraph' || tok.type === 'text' || tok.type === 'heading') {
      const t = tok as Tokens.Paragraph;
      parts.push(oneLine(t.tokens ? inline(t.tokens) : t.text));
    } else if (tok.type === 'list') {
      for (const item of (tok as Tokens.List).items) parts.push(oneLine(blockText(item.tokens)));
    } else if (tok.type === 'code') {
      parts.push((tok as Tokens.Code).text);
    } else if (tok.type === 'blockquote') {
      parts.push(blockText((tok as Tokens.Blockquote).tokens));
    } else if (tok.type === 'html') {
      parts.push(htmlToText((tok as Tokens.HTML).text));
    }
  }
  return parts.join('\n');
}

function decodeEntities(text: string): string {
  return /&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]+);/i.test(text) ? htmlToText(text.replace(/</g, '&lt;')) : text;
}

/** Minimal markup removal for text marked did not lex (MkDocs admonition bodies). */
function stripMarkdown(text: string): string {
  return text
    .replace(/^ {4}/gm, '')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/`([^`]+)`/g, '$1');
}

function isIndentedCode(tok: Token | undefined): boolean {
  return tok?.type === 'code' && (tok as Tokens.Code).codeBlockStyle === 'indented';
}

/** Lines indented four spaces (or a tab), as the body of a MkDocs block: that indent removed. */
function dedent(text: string): string {
  return text.replace(/^(?: {4}|\t)/gm, '');
}
