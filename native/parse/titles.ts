/**
 * What a manual is called. A document's own title is taken unless it names no manual: a writer's
 * placeholder, a table of contents' heading, or a link's text (a README whose first heading only points
 * to its other-language twin). A file-name title that names no product either (README, index) gets the
 * name of the folder that holds it, so manuals of different products are told apart.
 */
import { basename, dirname } from 'node:path';
import { titleFromFileName } from './text-utils.js';

/**
 * What writers put in a title when the author gave none: a bracketed word ("(anonymous)", "[Untitled]",
 * "<none>"), an office suite's default document name ("Document1", "文档1"), "无标题", "Untitled …".
 */
const PLACEHOLDER = /^(?:[([{<][^)\]}>]*[)\]}>]|(?:document|doc|文档|无标题文档)\s*\d*|无标题|title|none|unknown|untitled\b.*)$/iu;
/** The heading of a table of contents, in the languages the manuals come in. */
const CONTENTS = /^(?:(?:table\s+of\s+)?contents?|toc|目\s*录|目\s*次|inhaltsverzeichnis|inhalt|sommaire|table\s+des\s+mati[eè]res|índice|indice|содержание)$/iu;
/** A link's words, not a name: "… -> please click here", "点击这里". */
const LINK_TEXT = /\bclick\b.*\bhere\b|\bclick here\b|->|→|点击|点此/iu;

/** True when `title` names no manual (see above). */
export function isNoTitle(title: string): boolean {
  const t = title.replace(/\s+/g, ' ').trim().replace(/[:：.。]$/u, '');
  return t === '' || PLACEHOLDER.test(t) || CONTENTS.test(t) || LINK_TEXT.test(t);
}

/** File stems that say what a file is for, not which product it documents. */
const GENERIC_STEM = /^(?:readme|index|home|main|start|contents|toc)(?:[ ._-].*)?$/i;
/** Folder names that hold documentation without naming its product. */
const GENERIC_FOLDER = /^(?:docs?|documentation|manuals?|help|src|source|files|pdfs?|wiki|en|english|zh|cn|chinese|zh[-_](?:cn|hans|tw|hant)|[a-z]{2}[-_][a-z]{2})$/i;

/** A title from the file's path: its name, and for a README-like name the product folder it sits in. */
export function titleFromPath(absPath: string): string {
  const own = titleFromFileName(basename(absPath));
  const stem = basename(absPath).replace(/\.[^.]+$/, '');
  if (!GENERIC_STEM.test(stem)) return own;
  let dir = dirname(absPath);
  while (GENERIC_FOLDER.test(basename(dir)) && dirname(dir) !== dir) dir = dirname(dir);
  const folder = basename(dir);
  return folder && dirname(dir) !== dir ? `${folder} ${own}` : own;
}
