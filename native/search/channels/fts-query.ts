/**
 * The full-text query of a question, as plain data: which terms, on which columns, with which
 * weights. Pure (no LanceDB): the store turns the plan into its index's query objects.
 */
import { analyzeQuery } from '../../text/analyze.js';
import type { FtsPlan } from '../../store/types.js';
import type { KeywordConfig } from '../settings.js';

export type { FtsClause, FtsPlan } from '../../store/types.js';

/**
 * A question about what to watch out for ("what must I check before running it", "precautions",
 * "注意事项"): the manual's warnings answer it. Measured on the dev set: the two such questions
 * (a multi-part one and a Chinese one) and no other.
 */
const PRECAUTION = /\b(?:precautions?|safety|hazards?|careful|watch out|check(?:ed)? before|before (?:i|we|you) (?:run|start|power|calibrat|open|turn))|注意事项|安全|小心|预防/i;
/** The words of a warning or a safety section. */
const WARNING_WORDS = 'warning caution danger safety';
/** Weight of those words in a precaution question, relative to its own (1). */
const PRECAUTION_BOOST = 0.3;
let warningTerms: string | null = null;

/** Weight of a tight equivalent (abbreviation ↔ spelled out) relative to the query's own terms. */
export const EQUIVALENT_BOOST = 0.7;

/** Text known to be about the question, searched with a lower weight than the question itself. */
export interface RelatedText {
  text: string;
  /** Weight relative to the question's own terms (1). */
  boost: number;
}

/**
 * BM25 over the analyzed text (and, weighted, headings), with thesaurus expansions. `related` is
 * text known to be about the question (e.g. the definition of a fault code it names): its terms are
 * added with a lower weight than the question's own. Null when nothing can be searched.
 */
export function buildFtsPlan(query: string, cfg: KeywordConfig, related?: RelatedText): FtsPlan | null {
  const { terms, expansions, equivalents } = analyzeQuery(query, { expand: cfg.expand });
  const plan: FtsPlan = [];
  if (related) {
    const own = new Set(terms);
    const extra = analyzeQuery(related.text, { expand: false }).terms.filter((t) => !own.has(t));
    if (extra.length > 0) plan.push({ terms: extra.join(' '), columns: ['fts'], boost: related.boost });
  }
  if (terms.length > 0) {
    const text = terms.join(' ');
    plan.push(cfg.headingBoost > 0 ? { terms: text, columns: ['fts', 'fts_head'], columnBoosts: [1, cfg.headingBoost] } : { terms: text, columns: ['fts'] });
  }
  // One-token equivalents (an identifier typed as two words, an abbreviation) share one clause: a
  // clause per token scores the same and costs the index a query each.
  const oneToken = equivalents.filter((g) => g.length === 1).map((g) => g[0] as string);
  if (oneToken.length > 0) plan.push({ terms: oneToken.join(' '), columns: ['fts'], boost: EQUIVALENT_BOOST });
  for (const g of equivalents) if (g.length > 1) plan.push({ terms: g.join(' '), columns: ['fts'], boost: EQUIVALENT_BOOST, allTerms: true });
  // A question about what to watch out for is answered by the manual's warnings: passages with one
  // (and safety headings) rank higher, not only those that share the question's other words.
  if (PRECAUTION.test(query)) {
    warningTerms ??= analyzeQuery(WARNING_WORDS, { expand: false }).terms.join(' ');
    plan.push({ terms: warningTerms, columns: ['fts', 'fts_head'], columnBoosts: [1, cfg.headingBoost], boost: PRECAUTION_BOOST });
  }
  const boost = cfg.expansionBoost;
  const singles = expansions.filter((g) => g.length === 1).map((g) => g[0] as string);
  if (singles.length > 0) plan.push({ terms: singles.join(' '), columns: ['fts'], boost });
  for (const g of expansions) {
    if (g.length > 1) plan.push({ terms: g.join(' '), columns: ['fts'], boost, allTerms: true });
  }
  return plan.length > 0 ? plan : null;
}

/**
 * The plan's clauses as they can match passages that hold only `terms` (a few files' indexed terms):
 * other terms are left out, and a clause that needs all its terms goes when one is missing. Those
 * passages score exactly as under the whole plan (a term they lack adds nothing to their BM25, and
 * the index's tokens are the plan's: whitespace, lowercase), and a query with few terms costs the
 * index little. Null when nothing is left to search.
 */
export function restrictPlan(plan: FtsPlan, terms: ReadonlySet<string>): FtsPlan | null {
  const out: FtsPlan = [];
  for (const clause of plan) {
    const all = clause.terms.split(' ').filter(Boolean);
    const kept = all.filter((t) => terms.has(t.toLowerCase()));
    if (kept.length === 0 || (clause.allTerms && kept.length < all.length)) continue;
    out.push({ ...clause, terms: kept.join(' ') });
  }
  return out.length > 0 ? out : null;
}
