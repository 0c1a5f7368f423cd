/**
 * The whole question's channel searches in each source (hybridSearch: keyword, and vector when the
 * source has an embedder), with the code hits' own rows left out; a scoped question gets more
 * candidates, and its named folders a search of their own when their manuals are in another language.
 */
import type { SearchFilters, SearchHit, SearchMode, SearchRequest } from '../../contract/api.js';
import type { Lang } from '../../contract/document.js';
import type { NameScope } from '../plan/name-index.js';
import type { SourcePlan } from '../plan/retrieval-plan.js';
import { appendMissing } from '../rank/interleave.js';
import { scoped } from '../rank/scope.js';
import type { RetrievalSettings } from '../settings.js';
import type { RetrievalSource } from '../source.js';
import { escapeRegExp } from '../../text/regexp.js';
import { hybridSearch } from './hybrid.js';

/** One source's lists for the whole question. */
export interface WholeSearch {
  mode: SearchMode;
  /** The passages, scoped, at most k. */
  hits: { pack: string | null; hits: SearchHit[] };
  /** Each channel's own passages, at most the ranking depth. */
  keyword: { pack: string | null; hits: SearchHit[] };
  vector: { pack: string | null; hits: SearchHit[] };
}

/**
 * The whole question in every source, concurrently (a query embedding, a full-text and a vector
 * search each, on the native libraries' threads).
 */
export function searchWhole(
  perSource: SourcePlan[],
  req: SearchRequest & { query: string; k: number },
  ctx: { depth: number; lang: Lang; settings: RetrievalSettings; signal?: AbortSignal },
): Promise<WholeSearch[]> {
  const { query, k } = req;
  const { depth, lang, settings, signal } = ctx;
  const off = settings.off;
  return Promise.all(perSource.map(async ({ src, scope, related, notCodeRow }) => {
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
  req: SearchRequest & { query: string; k: number },
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
