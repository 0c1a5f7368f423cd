/**
 * A two-part question's parts searched one by one in each source (keyword only: the whole question's
 * search carries the vectors), each carrying its own codes' meanings; a quoted message's part puts the
 * passages that show it as written first. Each part's source lists are fused by rank.
 */
import type { SearchHit, SearchRequest } from '../../contract/api.js';
import type { Lang } from '../../contract/document.js';
import type { codeDefinitions } from '../plan/codes.js';
import { relatedText } from '../plan/codes.js';
import type { PlanPart } from '../plan/query-plan.js';
import type { SourcePlan } from '../plan/retrieval-plan.js';
import { fuseSourceHits } from '../rank/fuse.js';
import { appendMissing } from '../rank/interleave.js';
import { scoped } from '../rank/scope.js';
import type { RetrievalSettings } from '../settings.js';
import { hybridSearch, toHit } from './hybrid.js';

/** One part's fused passages, and whether a passage shows the part's message as written. */
export interface PartSearch {
  part: PlanPart;
  fused: SearchHit[];
  showsMessage: boolean;
}

/** Every part, concurrently; each part's sources one after the other. */
export function searchParts(
  perSource: SourcePlan[],
  parts: PlanPart[],
  definitions: Pick<ReturnType<typeof codeDefinitions>, 'matchesOf'>,
  req: SearchRequest & { k: number },
  ctx: { lang: Lang; settings: RetrievalSettings; signal?: AbortSignal },
): Promise<PartSearch[]> {
  const { k } = req;
  const { lang, settings, signal } = ctx;
  const off = settings.off;
  return Promise.all(parts.map(async (part) => {
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
      if (scope) hits = scoped(scope, hits, null);
      partSources.push({ pack: src.pack, hits });
      signal?.throwIfAborted();
    }
    return { part, fused: fuseSourceHits(partSources, k), showsMessage };
  }));
}

/** Hits in the question's language first (a quoted English message is also quoted in its translations), order kept. */
function sameLanguageFirst(hits: SearchHit[], lang: Lang): SearchHit[] {
  return [...hits.filter((h) => h.lang === lang), ...hits.filter((h) => h.lang !== lang)];
}
