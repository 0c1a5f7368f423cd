/**
 * What a retrieval knows before it searches: per source, the question's codes (their hits, their
 * meanings as related text, their table rows to leave out of the passages) and the scope (the product
 * the question names, else the codes' folder); across sources, the query plan (a two-part question's
 * parts, each with the detected codes' meanings, the named product and the messages the question shows).
 */
import type { CodeLookupResponse, CodeMatch, SearchFilters, SearchHit } from '../../contract/api.js';
import type { Lang } from '../../contract/document.js';
import { stepOn, type RankingStep, type RetrievalSettings } from '../settings.js';
import type { RetrievalSource } from '../source.js';
import { codeDefinitions, codeScope, mergeCodeLookups, perSourceCodes, relatedText, toCodeHits } from './codes.js';
import { messagesIn } from './messages.js';
import { matchNames, type NameScope } from './name-index.js';
import { planQuery, type QueryPlan } from './query-plan.js';

/** One source as a retrieval searches it: its code matches, scope and related text. */
export interface SourcePlan {
  src: RetrievalSource;
  matches: CodeMatch[];
  scope: NameScope | null;
  related: { text: string; boost: number } | undefined;
  /** False for a passage that is a code hit's own table row (shown once, as the code). */
  notCodeRow: (h: SearchHit) => boolean;
}

/**
 * Each source's code lookup and scope (the local library and every selected pack alike), the code
 * hits of all sources in source order, and the merged lookup.
 */
export async function planSources(
  sources: RetrievalSource[],
  query: string,
  lang: Lang,
  filters: SearchFilters | undefined,
  settings: RetrievalSettings,
): Promise<{ perSource: SourcePlan[]; codeHits: SearchHit[]; codes: CodeLookupResponse }> {
  const on = (step: RankingStep) => stepOn(settings, step);
  const codeHits: SearchHit[] = [];
  const codeParts: { pack: string | null; res: CodeLookupResponse }[] = [];
  const perSource: SourcePlan[] = [];
  for (const { src, res: found } of perSourceCodes(sources, query, filters)) {
    if (found) codeParts.push({ pack: src.pack, res: found });
    const matches = found?.matches ?? [];
    const mine = toCodeHits(matches, lang).map((h) => (src.pack === null ? h : { ...h, pack: src.pack }));
    // A named product scopes the passages; else the codes the question names do (their manuals' folder).
    const scope = on('scope') ? ((src.names ? matchNames(await src.names(), query) : null) ?? codeScope(matches)) : null;
    // A question that names a code is about what the code means: its definition's words find the
    // passages that explain it further (the setting to change, the part to check).
    const related = matches.length > 0 ? { text: relatedText(matches), boost: settings.relatedBoost } : undefined;
    // A code's table row is also a passage: show it once, as the code.
    // (A list item's record quotes its bullet; the passage's text has none.)
    const rowTexts = mine.map((c) => ({ file: c.file, text: c.text.replace(/^[*+-]\s+/, '') }));
    const notCodeRow = (h: SearchHit) => !rowTexts.some((c) => c.file === h.file && h.text.includes(c.text));
    codeHits.push(...mine);
    perSource.push({ src, matches, scope, related, notCodeRow });
  }
  return { perSource, codeHits, codes: mergeCodeLookups(query, codeParts, 0) };
}

/** Unquoted shown messages a question is searched for at most. */
const MAX_SHOWN_MESSAGES = 2;

/**
 * The query plan of a question (query-plan.ts) with what the sources know: the named product's
 * source names as context, the detected codes' meanings from the one code lookup, and the messages
 * the library's passages show that the question types without quotes. Also the scope's names and,
 * when the named scope is whole folders, the folders.
 */
export async function planRetrieval(sources: RetrievalSource[], perSource: SourcePlan[], query: string, codes: CodeLookupResponse): Promise<{
  plan: QueryPlan;
  definitions: ReturnType<typeof codeDefinitions>;
  scopeNames: string[];
  scopeFolders: string[];
}> {
  const scopeNames = [...new Set(perSource.flatMap((p) => p.scope?.names ?? []))];
  // Folders only when the named scope is whole folders (a name from a title or heading scopes files).
  // Asked for a code, a product's folder named again in its own manuals' titles ("voron" and "VORON
  // Guide") is still that folder: whose code it is. (Without a code, such a scope stays files: the gate's
  // names-outside-scope rule would otherwise refuse "TMC2209 error on voron", which another set answers.)
  const named = perSource.flatMap((p) => (p.scope?.names.length ? [p.scope] : []));
  const inPrefixes = (s: NameScope) => s.files.every((f) => s.prefixes.some((p) => f.startsWith(`${p}/`)));
  const wholeFolders = (s: NameScope) => s.prefixes.length > 0 && (s.files.length === 0 || (codes.detected.length > 0 && inPrefixes(s)));
  const scopeFolders = named.every(wholeFolders) ? [...new Set(named.flatMap((s) => s.prefixes))] : [];
  const contextNames = await sourceNames(perSource, scopeNames);
  const definitions = codeDefinitions(query, codes);
  // A message a manual shows, typed without quotes ("teach stroke lost when running …"), is searched as a quoted one.
  const shownMessages = [...new Set((await Promise.all(sources.map(async (s) => (s.messages ? messagesIn(await s.messages(), query) : [])))).flat())].slice(0, MAX_SHOWN_MESSAGES);
  const plan = planQuery(query, { context: contextNames, definitions: definitions.byDetected, shownMessages });
  return { plan, definitions, scopeNames, scopeFolders };
}

/** The names of the scope that are source folders: the product a part must keep saying. */
async function sourceNames(perSource: { src: RetrievalSource }[], names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const out = new Set<string>();
  for (const { src } of perSource) {
    if (!src.names) continue;
    const index = await src.names();
    for (const e of index.entries) if (e.kind === 'source' && names.includes(e.name)) out.add(e.name);
  }
  return [...out];
}
