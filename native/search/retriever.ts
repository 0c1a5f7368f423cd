/**
 * The one retrieval: a question against every selected source (the local library and installed
 * packs). Per source: exact fault-code lookup, then passages (keyword / vector / hybrid) with the
 * named codes' definitions as related text; a code's own table row is shown once, as the code.
 * Across sources: code hits first (the question's language first), then passages fused by rank.
 * Returns the fused list, the merged code lookup and each retriever's fused ranking, so an answer
 * needs one call.
 *
 * A question that names a product the library knows (name-index.ts) prefers that product's
 * manuals (boostScope, with a search inside its folder for candidates); one that names no product
 * but a code prefers the manuals of the folder that defines the code. A two-part question
 * (query-plan.ts) is also searched part by part, each part carrying the detected codes' meanings
 * from the one code lookup, and the part lists are interleaved with the whole question's so that
 * every part reaches the top five. The steps that re-order passages are listed, in order, in
 * settings.ts (RANKING_STEPS).
 */
import type { CodeLookupResponse, CodeMatch, SearchFilters, SearchHit, SearchMode, SearchRequest } from '../contract/api.js';
import type { Lang } from '../contract/document.js';
import { EngineError } from '../contract/errors.js';
import type { CodeIndex } from '../fault-codes/index.js';
import { detectCodes } from '../fault-codes/detect.js';
import type { LibraryStore } from '../store/library-store.js';
import { allowedFiles } from '../store/filters.js';
import { detectLang } from '../text/lang.js';
import { fuseSourceHits, mergeCodeLookups } from './rank/fuse.js';
import { hybridSearch, toHit, type QueryEmbedder, type SearchableStore } from './channels/hybrid.js';
import { appendMissing, boostScope, interleave } from './rank/interleave.js';
import { inScope, matchNames, type NameIndex, type NameScope } from './plan/name-index.js';
import { messagesIn, type MessageIndex } from './plan/messages.js';
import { planQuery, type PlanPart } from './plan/query-plan.js';
import { fuseRrf, placeWithin } from './rank/rrf.js';
import { DEFAULT_K, DEFAULT_RANKING_DEPTH, DEFAULT_RETRIEVAL_SETTINGS, FIRST_PAGE, stepOn, type RankingStep, type RetrievalSettings } from './settings.js';
import { escapeRegExp } from '../text/regexp.js';

/** One library to search, with the embedder its vectors can be searched with (null: keyword only). */
export interface RetrievalSource {
  /** Pack id; null for the local library. */
  pack: string | null;
  store: SearchableStore & Pick<LibraryStore, 'getFiles' | 'termCounts' | 'findText' | 'languageCounts'>;
  codes: (Pick<CodeIndex, 'lookup'> & Partial<Pick<CodeIndex, 'recordOfRow'>>) | null;
  embedder: QueryEmbedder | null;
  /** The library's known names (built once, kept by the Library); absent: no scoping. */
  names?: () => Promise<NameIndex>;
  /** The messages the library's passages show (built once, kept by the Library); absent: none. */
  messages?: () => Promise<MessageIndex>;
}

export interface RetrieveRequest extends SearchRequest {
  /** Length of each retriever's ranking in the result (default 5). */
  rankingDepth?: number;
  /** Also give `rowCodes` (the answer pipeline quotes rows as records; a search shows rows as they are). */
  rowRecords?: boolean;
}

export interface Retrieval {
  query: string;
  /** Code hits first, then passages, at most k. */
  hits: SearchHit[];
  /** Which retrievers ran (hybrid when any source searched vectors). */
  mode: SearchMode;
  /** The exact code lookup of the query across the sources. */
  codes: CodeLookupResponse;
  /**
   * What a keyword-only and a vector-only search with k = rankingDepth would list (code hits
   * first, as in `hits`). Meaningful when mode is hybrid; otherwise both are the top of `hits`.
   */
  rankings: { keyword: SearchHit[]; vector: SearchHit[] };
  /**
   * A two-part question's parts, each with its own top passages (rankingDepth), in question order;
   * absent when the question is one part. The answer cites every part.
   */
  parts?: RetrievedPart[];
  /** The library names the question mentions (the manuals it was scoped to); absent when none. */
  scope?: string[];
  /** The folders of the named products (`moteus`, no slash); absent when the question names none. */
  scopeFolders?: string[];
  /**
   * The fault-code record each table-row passage of the hits and parts shows, by chunk id: an answer
   * quotes the row as its record (meaning, cause, remedy), not as the file's raw fields.
   */
  rowCodes?: Record<string, CodeMatch>;
  ms: number;
}

export interface RetrievedPart {
  /** The clause as the question writes it. */
  clause: string;
  /** What was searched for it (the clause with inherited context). */
  query: string;
  reason: PlanPart['reason'];
  /** The part's own top passages (code rows excluded). */
  hits: SearchHit[];
}

/** The retrieval interface the answer pipeline and the engine use. */
export interface Retriever {
  retrieve(req: RetrieveRequest, signal?: AbortSignal): Promise<Retrieval>;
  lookupCodes(text: string, filters?: SearchFilters): Promise<CodeLookupResponse>;
}

export { DEFAULT_RANKING_DEPTH };

/** Exact code lookup in each source, merged (the filters the code index does not apply itself included). */
export function lookupCodes(sources: RetrievalSource[], text: string, filters?: SearchFilters): CodeLookupResponse {
  const t0 = performance.now();
  const parts = perSourceCodes(sources, text, filters).flatMap((p) => (p.res ? [{ pack: p.src.pack, res: p.res }] : []));
  return mergeCodeLookups(text, parts, round2(performance.now() - t0));
}

/** Unquoted shown messages a question is searched for at most. */
const MAX_SHOWN_MESSAGES = 2;

export async function retrieve(
  sources: RetrievalSource[],
  req: RetrieveRequest,
  settings: RetrievalSettings = DEFAULT_RETRIEVAL_SETTINGS,
  signal?: AbortSignal,
): Promise<Retrieval> {
  const t0 = performance.now();
  const query = req.query;
  const k = req.k ?? DEFAULT_K;
  const depth = req.rankingDepth ?? DEFAULT_RANKING_DEPTH;
  const on = (step: RankingStep) => stepOn(settings, step);
  const off = settings.off;
  const lang = detectLang(query);
  const codeHits: SearchHit[] = [];
  const codeParts: { pack: string | null; res: CodeLookupResponse }[] = [];
  const perSource: {
    src: RetrievalSource;
    matches: CodeMatch[];
    scope: NameScope | null;
    related: { text: string; boost: number } | undefined;
    notCodeRow: (h: SearchHit) => boolean;
  }[] = [];
  // The local library and every selected pack are searched alike; their lists are fused by rank.
  // First what needs no search: each source's code lookup and the product the question names.
  for (const { src, res: found } of perSourceCodes(sources, query, req.filters)) {
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
  const codes = mergeCodeLookups(query, codeParts, 0);

  // Two-part questions: one retrieval per part (at most MAX_PARTS), interleaved with the whole list.
  const scopeNames = [...new Set(perSource.flatMap((p) => p.scope?.names ?? []))];
  // Folders only when the named scope is whole folders (a name from a title or heading scopes files).
  const named = perSource.flatMap((p) => (p.scope?.names.length ? [p.scope] : []));
  const scopeFolders = named.every((s) => s.files.length === 0) ? [...new Set(named.flatMap((s) => s.prefixes))] : [];
  const contextNames = await sourceNames(perSource, scopeNames);
  const definitions = codeDefinitions(query, codes);
  // A message a manual shows, typed without quotes ("teach stroke lost when running …"), is searched as a quoted one.
  const shownMessages = [...new Set((await Promise.all(sources.map(async (s) => (s.messages ? messagesIn(await s.messages(), query) : [])))).flat())].slice(0, MAX_SHOWN_MESSAGES);
  const plan = planQuery(query, { context: contextNames, definitions: definitions.byDetected, shownMessages });

  // The whole question and its parts are searched concurrently (the whole: a query embedding, a
  // full-text and a vector search; each part: a full-text search), on the native libraries' threads.
  const wholeSearches = Promise.all(perSource.map(async ({ src, scope, related, notCodeRow }) => {
    // A scope re-ranks the candidates: give it SCOPE_DEPTH × k of them, so a named product's passage
    // that other manuals' passages outscore just below the cut can still be lifted.
    const [res, inside] = await Promise.all([
      hybridSearch(src.store, src.embedder, { ...req, query, k: scope ? SCOPE_DEPTH * k : k }, { signal, related, keyword: settings.keyword, off }),
      scope ? foreignScopeSearch(src, { ...req, query, k }, lang, scope, related, settings, signal) : null,
    ]);
    let passages = res.hits.filter(notCodeRow);
    if (scope) passages = scoped(scope, passages, inside?.filter(notCodeRow) ?? null);
    signal?.throwIfAborted();
    return {
      mode: res.mode,
      hits: { pack: src.pack, hits: passages.slice(0, k) },
      keyword: { pack: src.pack, hits: res.rankings.keyword.filter(notCodeRow).slice(0, depth) },
      vector: { pack: src.pack, hits: res.rankings.vector.filter(notCodeRow).slice(0, depth) },
    };
  }));
  const partSearches = Promise.all(plan.parts.map(async (part) => {
    const partSources: { pack: string | null; hits: SearchHit[] }[] = [];
    let showsMessage = false;
    for (const { src, matches, scope, notCodeRow } of perSource) {
      const own = matches.filter((m) => part.codes.some((c) => definitions.matchesOf(c, m)));
      const rel = own.length > 0 ? own : part.reason === 'connective' ? matches : [];
      const related = rel.length > 0 ? { text: relatedText(rel), boost: settings.relatedBoost } : undefined;
      // A part is searched by its words (and its codes' meanings): the whole question's search carries
      // the vectors. A vector search per part cost two-part questions a third of their time on two
      // cores, and without it no part's passage was lost on the dev set (e5).
      const res = await hybridSearch(src.store, src.embedder, { ...req, query: part.query, k, mode: 'keyword' }, { signal, related, keyword: settings.keyword, off });
      // A quoted message: the passages that show it as written come first.
      const shown = part.reason === 'message' ? sameLanguageFirst((await src.store.findText(part.query, k, req.filters)).map(toHit), lang) : [];
      showsMessage ||= shown.some(notCodeRow);
      let hits = appendMissing(shown, res.hits, (h) => h.chunkId).filter(notCodeRow);
      if (scope) hits = boostScope(hits, (h) => inScope(scope, h.file));
      partSources.push({ pack: src.pack, hits });
      signal?.throwIfAborted();
    }
    return { part, fused: fuseSourceHits(partSources, k), showsMessage };
  }));
  const [wholes, searched] = await Promise.all([wholeSearches, partSearches]);
  // Hybrid when any source searched vectors.
  const mode: SearchMode | null = wholes.reduce<SearchMode | null>((m, w) => (m === null || m === 'keyword' ? w.mode : m), null);
  const whole = fuseSourceHits(wholes.map((w) => w.hits), k);
  const kwLists = wholes.map((w) => w.keyword);
  const vecLists = wholes.map((w) => w.vector);
  const parts: RetrievedPart[] = searched.map(({ part, fused }) => ({ clause: part.clause, query: part.query, reason: part.reason, hits: fused.slice(0, depth) }));
  const keywordRanking = fuseSourceHits(kwLists, depth);
  const hits = rankPlanned({ whole, parts: searched, codeHits, keywordRanking, k }, settings);
  const rankings = {
    keyword: [...codeHits, ...keywordRanking].slice(0, depth),
    vector: [...codeHits, ...fuseSourceHits(vecLists, depth)].slice(0, depth),
  };
  const rowCodes = req.rowRecords ? recordsOfRows(sources, [...hits, ...parts.flatMap((p) => p.hits)]) : {};
  const ms = round2(performance.now() - t0);
  return {
    query,
    hits,
    mode: mode ?? 'keyword',
    codes: { ...codes, ms },
    rankings,
    ...(parts.length > 0 ? { parts } : {}),
    ...(scopeNames.length > 0 ? { scope: scopeNames } : {}),
    ...(scopeFolders.length > 0 ? { scopeFolders } : {}),
    ...(Object.keys(rowCodes).length > 0 ? { rowCodes } : {}),
    ms,
  };
}

/**
 * The last ranking steps of a retrieval (settings.ts, RANKING_STEPS, in this order), pure: the
 * passage that shows a message the question writes leads (shown-message-first); a two-part
 * question's part lists are interleaved with the whole question's (interleave-parts) and keep the
 * whole question's first keyword passages on the first page (plan-keyword-top); code hits lead.
 */
export function rankPlanned(
  lists: { whole: SearchHit[]; parts: { fused: SearchHit[]; showsMessage: boolean }[]; codeHits: SearchHit[]; keywordRanking: SearchHit[]; k: number },
  settings: Pick<RetrievalSettings, 'off'> = {},
): SearchHit[] {
  const { whole, parts, codeHits, keywordRanking, k } = lists;
  const on = (step: RankingStep) => stepOn(settings, step);
  const idOf = (h: SearchHit) => h.chunkId;
  const showing = on('shown-message-first') ? parts.flatMap((x) => (x.showsMessage && x.fused[0] ? [x.fused[0]] : [])) : [];
  const merged = on('interleave-parts') ? interleave(parts.map((x) => x.fused), whole, { idOf, k, wholeFirst: true }) : whole;
  const interleaved = appendMissing(showing, merged, idOf);
  const passages = parts.length > 0 && on('plan-keyword-top') ? keepKeywordTop(interleaved, keywordRanking, Math.max(PLAN_KEYWORD_KEEP, FIRST_PAGE - codeHits.length)) : interleaved;
  return [...codeHits, ...passages].slice(0, k);
}

/** The code record each table-row passage shows, from its own source's code index. */
function recordsOfRows(sources: RetrievalSource[], hits: SearchHit[]): Record<string, CodeMatch> {
  const out: Record<string, CodeMatch> = {};
  for (const h of hits) {
    if (h.kind !== 'table-row' || out[h.chunkId]) continue;
    const src = sources.find((s) => s.pack === (h.pack ?? null));
    const m = src?.codes?.recordOfRow?.(h.file, h.text, h.lang);
    if (m) out[h.chunkId] = m;
  }
  return out;
}

/** The whole question's keyword passages a two-part question's interleaved list keeps on its first page. */
const PLAN_KEYWORD_KEEP = 2;

/**
 * The interleaved list of a two-part question with the whole question's first PLAN_KEYWORD_KEEP keyword
 * passages within its first `window` places. Fusing one question's channels keeps keyword's top two on
 * the first page (rrf.ts, guaranteeTop); interleaving the parts' lists round by round pushed the whole
 * list's third and later places off it, and in hybrid mode the vector channel puts keyword's best
 * passage there: turning the model on must not drop what keyword search alone puts first.
 */
function keepKeywordTop(passages: SearchHit[], keyword: SearchHit[], window: number): SearchHit[] {
  const must = keyword.filter((h) => h.kind !== 'code').slice(0, PLAN_KEYWORD_KEEP).map((h) => h.chunkId);
  const byId = new Map(passages.map((h) => [h.chunkId, h] as const));
  return placeWithin(passages.map((h) => ({ id: h.chunkId, score: h.score })), must, window).map((r) => byId.get(r.id) as SearchHit);
}

/** Candidates (× k) the scope re-rank sees for a question that names a product or a code. */
const SCOPE_DEPTH = 3;
/** Folder prefixes searched on their own at most, for a question that names a product. */
const MAX_SCOPED_PREFIXES = 2;
/**
 * Below this share of the named folders' passages in the question's language, the product is
 * documented in another language, and its folders are searched on their own.
 */
const FOREIGN_SCOPE_SHARE = 1 / 3;

/**
 * The named folders' own search, when the named product's manuals are (nearly) all in another
 * language than the question: the library-wide lists cannot rank them, as a multilingual model
 * scores any passage in the question's own language higher and the keyword index matches the
 * question's own words at full weight and their translations at a fraction of it. Searched without
 * the product's name. Null otherwise (a search inside the folders for every scoped question measured
 * worse on the dev set: more refusals and time) or when the technician chose a folder.
 */
async function foreignScopeSearch(
  src: RetrievalSource,
  req: RetrieveRequest & { query: string; k: number },
  lang: Lang,
  scope: NameScope,
  related: { text: string; boost: number } | undefined,
  settings: RetrievalSettings,
  signal?: AbortSignal,
): Promise<SearchHit[] | null> {
  if (req.filters?.pathPrefix) return null;
  const prefixes = scope.prefixes.slice(0, MAX_SCOPED_PREFIXES);
  if (!(await foreignLanguage(src.store, prefixes, req.filters, lang))) return null;
  // Inside its own folders the product's name tells no passage apart, and in the other language it
  // is the one word that matches at full weight (the rest match as translations): left in, it ranks
  // the pages that repeat the name (indexes, overviews) above the one that answers.
  const query = withoutNames(req.query, scope.names);
  const lists = await Promise.all(
    prefixes.map((p) => hybridSearch(src.store, src.embedder, { ...req, query, filters: { ...req.filters, pathPrefix: `${p}/` } }, { signal, related, keyword: settings.keyword, off: settings.off })),
  );
  return lists.reduce<SearchHit[]>((all, r) => appendMissing(all, r.hits, (h) => h.chunkId), []);
}

/**
 * Passages of a question that names a library name, re-ranked to prefer the scope (nothing dropped).
 * With the named folders' own search (foreignScopeSearch), the two lists are first fused by rank:
 * a passage both rank high leads; on a tie, the folders' own order decides.
 */
function scoped(scope: NameScope, hits: SearchHit[], inside: SearchHit[] | null): SearchHit[] {
  let cands = hits;
  if (inside) {
    const byId = new Map([...hits, ...inside].map((h) => [h.chunkId, h] as const));
    const ranks = (hs: SearchHit[]) => hs.map((h, i) => ({ id: h.chunkId, score: 1 / (i + 1) }));
    // Ties go to the folders' own order: it ranks without the name that skews the library-wide list.
    cands = fuseRrf([ranks(inside), ranks(hits)]).map((r) => ({ ...(byId.get(r.id) as SearchHit), score: r.score }));
  }
  return boostScope(cands, (h) => inScope(scope, h.file));
}

/** The question without the names it scopes by (inside their folders they tell passages nothing apart). */
function withoutNames(question: string, names: string[]): string {
  let out = question;
  for (const n of names) {
    const esc = escapeRegExp(n);
    out = out.replace(/\p{Script=Han}/u.test(n) ? new RegExp(esc, 'gu') : new RegExp(`(?<![\\p{L}\\p{N}])${esc}(?![\\p{L}\\p{N}])`, 'giu'), ' ');
  }
  return out.replace(/\s+/g, ' ').trim() || question;
}

/** Whether the named folders' passages are (nearly) all in a language other than the question's. */
async function foreignLanguage(store: RetrievalSource['store'], prefixes: string[], filters: SearchFilters | undefined, lang: Lang): Promise<boolean> {
  if (prefixes.length === 0) return false;
  let total = 0;
  let own = 0;
  for (const p of prefixes) {
    const counts = await store.languageCounts({ ...filters, lang: undefined, pathPrefix: `${p}/` });
    for (const [l, n] of Object.entries(counts)) {
      total += n;
      if (l === lang) own += n;
    }
  }
  return total > 0 && own < FOREIGN_SCOPE_SHARE * total;
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

/**
 * The detected codes' meanings from the one code lookup, keyed as the query plan detects codes
 * (detectCodes), and which matches belong to a planned part's code.
 */
function codeDefinitions(query: string, codes: CodeLookupResponse) {
  // The lookup's detected keys, by the text the question wrote them as.
  const byRaw = new Map<string, string>();
  for (const [key, raw] of Object.entries(codes.typed ?? {})) byRaw.set(raw.toLowerCase(), key);
  const lookupKeyOf = new Map<string, string>();
  for (const c of detectCodes(query)) {
    const key = codes.detected.includes(c.key) ? c.key : byRaw.get(c.raw.toLowerCase());
    if (key) lookupKeyOf.set(c.key, key);
  }
  const byDetected: Record<string, string> = {};
  for (const [planKey, key] of lookupKeyOf) {
    const m = codes.matches.find((x) => x.key === key);
    // The description when the record has no cause or remedy of its own (a register list's
    // "17 - valve not set up - the valve teach-in has not been run").
    if (m) byDetected[planKey] = [m.title, ...(m.cause || m.remedy ? [m.cause, m.remedy] : [m.description])].filter(Boolean).join(' ');
  }
  return {
    byDetected,
    matchesOf: (planKey: string, m: CodeMatch): boolean => m.key === (lookupKeyOf.get(planKey) ?? planKey),
  };
}

function perSourceCodes(sources: RetrievalSource[], text: string, filters?: SearchFilters) {
  return sources.map((src) => {
    if (!src.codes) return { src, res: null };
    const res = src.codes.lookup(text, { manuals: filters?.manuals, equipment: filters?.equipment });
    return { src, res: { ...res, matches: res.matches.filter(codeFilter(filters, src.store)) } };
  });
}

/**
 * The search filters the code index does not apply itself: newest revision only (unless asked),
 * revision, path prefix and language, so a code hit never comes from a file a passage could not.
 * Manual and equipment filters are the index's (equipment is matched against each code's scope).
 */
function codeFilter(filters: SearchFilters | undefined, store: Pick<LibraryStore, 'getFiles'>): (m: CodeMatch) => boolean {
  const records = new Map(store.getFiles().map((f) => [f.file, f] as const));
  const allowed = allowedFiles(records, { ...filters, manuals: undefined, equipment: undefined });
  const langs = filters?.lang?.length ? new Set<string>(filters.lang) : null;
  return (m) => (allowed === null || allowed.has(m.file)) && (langs === null || langs.has(m.lang ?? 'en'));
}

/**
 * Exact fault-code matches, shown before passages: definitions in the question's language first
 * (every code's), then their translations.
 */
function toCodeHits(matches: CodeMatch[], lang: Lang): SearchHit[] {
  const ordered = [...matches.filter((m) => (m.lang ?? 'en') === lang), ...matches.filter((m) => (m.lang ?? 'en') !== lang)];
  return ordered.map((m, i) => ({
    file: m.file,
    page: m.page,
    section: m.section,
    text: m.text,
    score: 1000 - i,
    kind: 'code' as const,
    manual: m.manual,
    lang: m.lang ?? 'en',
    chunkId: `code:${m.key}:${m.file}:${i}`,
  }));
}

/**
 * The documentation set of the codes a question names: the top folder of each defining file (the
 * machine's or vendor's manuals), or the file itself when it sits at the library's top. "error 12,
 * which other switch must be on" names no machine, but the code's record does.
 */
function codeScope(matches: CodeMatch[]): NameScope | null {
  if (matches.length === 0) return null;
  const prefixes = [...new Set(matches.filter((m) => m.file.includes('/')).map((m) => m.file.split('/')[0] as string))];
  const files = [...new Set(matches.filter((m) => !m.file.includes('/')).map((m) => m.file))];
  return { names: [], files, prefixes };
}

/** Hits in the question's language first (a quoted English message is also quoted in its translations), order kept. */
function sameLanguageFirst(hits: SearchHit[], lang: Lang): SearchHit[] {
  return [...hits.filter((h) => h.lang === lang), ...hits.filter((h) => h.lang !== lang)];
}

function relatedText(matches: CodeMatch[]): string {
  const seen = new Set<string>();
  for (const m of matches.slice(0, 4)) for (const t of [m.title, m.description, m.cause, m.remedy]) if (t) seen.add(t);
  return [...seen].join(' ');
}

/** The query as search takes it: text, control characters as spaces, at most 2,000 characters. */
export function validateQuery(q: unknown): string {
  if (typeof q !== 'string') throw new EngineError('INVALID_INPUT', 'The query must be text: type a fault code or a few words about the problem.');
  // Control characters carry no meaning in a manual search; keep tabs/newlines as spaces.
  // eslint-disable-next-line no-control-regex
  const clean = q.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (clean.length === 0) throw new EngineError('INVALID_INPUT', 'The search is empty. Type a fault code or a few words about the problem.');
  if (clean.length > 2000) {
    throw new EngineError('INVALID_INPUT', `The search is ${clean.length} characters long; keep it under 2,000 (a code or a sentence is enough).`);
  }
  return clean;
}

export function clampK(k: number | undefined): number {
  if (k === undefined) return DEFAULT_K;
  if (!Number.isInteger(k) || k < 1 || k > 200) {
    throw new EngineError('INVALID_INPUT', `k must be a whole number from 1 to 200 (got ${k}); use a number in that range, or leave it out for 10.`);
  }
  return k;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
