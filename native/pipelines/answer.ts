/**
 * The answer pipeline: follow-up rewrite → fault codes → retrieval (→ rerank) → evidence gate →
 * a code answer, an extractive answer, or a generative one with checked citations → safety text.
 * Retrieval and the models come in as adapters, so the pipeline is the same for the engine, the
 * tests and the benchmarks.
 */
import type { CodeLookupResponse, CodeMatch, SearchFilters, SearchHit } from '../contract/api.js';
import type { Retrieval, RetrieveRequest } from '../search/retriever.js';
import type { AskHooks, AskRequest, AskResponse, Citation, GeneratedDraft, Refusal } from '../contract/answer.js';
import { EngineError } from '../contract/errors.js';
import type { Reranker } from '../rerank/index.js';
import { rerank } from '../rerank/index.js';
import { collectEvidence, contentTerms, gate, machineWords, questionNames, scopeCandidates, spreadTerms, vocabularyTerms, type Evidence, type EvidenceInput } from '../answer/evidence.js';
import { spokenCode } from '../contract/codes.js';
import { codeAnswerLines, extractParts, renderParts, toCitation, type ExtractedPart } from '../answer/extract.js';
import { recentTurns, rewriteFollowUp } from '../answer/followup.js';
import { ANSWER_GRAMMAR, budgetPrompt, EXAMPLE_TURN } from '../answer/prompt.js';
import { streamingStop } from '../answer/generated-check.js';
import { judgeDraft } from '../answer/draft.js';
import { withReferencedSafety, type PassagesOf } from '../answer/safety.js';
import { answerText, promptLabel } from '../answer/sanitize.js';
import { analyze } from '../text/analyze.js';
import { detectCodes } from '../fault-codes/detect.js';

/** What the pipeline needs from a language model (LocalLlm implements it). */
export interface AnswerGenerator {
  readonly contextSize: number;
  countTokens(text: string): number;
  generate(req: {
    system: string;
    user: string;
    maxTokens?: number;
    signal?: AbortSignal;
    onToken?: (text: string) => void;
    /** A worked example: an earlier user turn and its answer. */
    example?: { user: string; answer: string };
    /** A GBNF grammar the answer must follow. */
    grammar?: string;
  }): Promise<{ text: string; aborted: boolean; firstTokenMs: number | null; chunks: number }>;
}

export interface AnswerDeps {
  /** The one retrieval (native/search/retriever.ts): codes, passages and each retriever's ranking. */
  retrieve(req: RetrieveRequest, signal?: AbortSignal): Promise<Retrieval>;
  /** Passages of the library holding each analyzed term (its vocabulary, for the gate); absent: not known. */
  vocabulary?(terms: string[], filters?: SearchFilters): Promise<Map<string, number>>;
  /**
   * In how many documentation sets (top folders) of the library each analyzed term occurs, and the
   * sets (for the gate: generic words, and what a refusal says the library covers); absent: not known.
   */
  spread?(terms: string[], filters?: SearchFilters): Promise<{ spread: Map<string, number>; docSets: string[] }>;
  /** The titles and equipment names of the manuals in these folders (a named product's own model names); absent: not known. */
  titles?(folders: string[], filters?: SearchFilters): Promise<string[]>;
  /** The language model, loaded once by the owner (null: none installed). */
  generator?: () => Promise<AnswerGenerator | null>;
  /**
   * Whether the installed model passed the answer check (scripts/eval-generation.ts, its result beside
   * the model file): only then does `prefer: auto` generate. Absent: it did not, so auto stays extractive.
   */
  generatorChecked?: () => Promise<boolean>;
  reranker?: () => Promise<Reranker | null>;
  /** One cited file's passages in reading order (the safety sections beside what an answer cites); absent: not read. */
  passagesOf?: PassagesOf;
}

/** Passages retrieved by default. */
export const DEFAULT_ANSWER_K = 8;
/** Tokens kept free for a generated answer. */
export const ANSWER_TOKENS = 400;
/**
 * Most tokens of a generation prompt (instructions, passages, question). Every prompt token is read
 * before the first answer token: on two quiet cores the default answer model (Qwen2.5-Coder-0.5B Q4_K_M)
 * reads ~218 tokens/s, so 800 tokens show the first token in ~3.6 s, within the 4 s target; the 1.5B
 * reads ~88 tokens/s (8.7 s). Measured by `npx tsx scripts/bench-answers.ts`. The best sentences come
 * first, so the cut loses the least.
 */
export const MAX_PROMPT_TOKENS = 800;
/** Streamed chunks between two loop checks of the text written so far. */
const LOOP_CHECK_EVERY = 16;
/** Code records shown at most. */
const MAX_CODES = 3;

export interface AskTimings {
  /** ms spent in the language model (load, rewrite, generation): part of the wait, reported beside it. */
  llmMs: number;
  firstTokenMs: number | null;
  tokens: number;
  /** Tokens of the generation prompt (instructions, passages, question), when one was written. */
  promptTokens?: number;
}

export async function ask(deps: AnswerDeps, req: AskRequest, hooks: AskHooks = {}, timings?: AskTimings): Promise<AskResponse> {
  const t0 = performance.now();
  const question = validateQuestion(req.question);
  const k = req.k ?? DEFAULT_ANSWER_K;
  if (!Number.isInteger(k) || k < 1 || k > 50) throw new EngineError('INVALID_INPUT', `k (passages to read) must be a whole number from 1 to 50 (got ${k}); leave it out to use ${DEFAULT_ANSWER_K}.`);
  const prefer = req.prefer ?? 'auto';
  const t = timings ?? { llmMs: 0, firstTokenMs: null, tokens: 0 };

  let generator: AnswerGenerator | null = null;
  let generatorError: string | null = null;
  // auto generates only with a model that passed the answer check; generative asks for it regardless.
  const useModel = prefer === 'generative' || (prefer === 'auto' && deps.generatorChecked !== undefined && (await deps.generatorChecked()));
  if (useModel && deps.generator) {
    // Loading the model (first question only) is LLM time, not answer overhead.
    const tl = performance.now();
    try {
      generator = await deps.generator();
    } catch (err) {
      generatorError = err instanceof Error ? err.message : String(err);
    }
    t.llmMs += performance.now() - tl;
  }

  // 1. Follow-up → standalone query.
  let standaloneQuery = rewriteFollowUp(question, req.conversation).standalone;
  if (generator && standaloneQuery !== question) {
    const tl = performance.now();
    standaloneQuery = await llmRewrite(generator, question, req.conversation ?? [], standaloneQuery, hooks.signal);
    t.llmMs += performance.now() - tl;
  }
  throwIfAborted(hooks.signal);

  // 2. Codes and passages: one retrieval, which also gives each retriever's own top five.
  const res = await deps.retrieve(answerRetrieval(standaloneQuery, k, req.filters), hooks.signal);
  const codes = res.codes;
  let passages = res.hits.filter((h) => h.kind !== 'code');
  const reranker = deps.reranker ? await deps.reranker() : null;
  if (reranker) passages = await rerank(reranker, standaloneQuery, passages, (h) => h.text);
  throwIfAborted(hooks.signal);

  // 3. Evidence gate.
  const { evidence } = await gateEvidence(deps, standaloneQuery, res, passages, req.filters);
  const decision = gate(evidence, passages.length);
  const base = { question, standaloneQuery, safety: [], citations: [] };
  if (!decision.answer) {
    return {
      ...base,
      answer: refusalText(decision.reason),
      mode: 'extractive',
      refused: true,
      refusal: refusal(decision.reason, standaloneQuery, res.hits, codes),
      ...waited(t0, t),
    };
  }

  // 4. The answer.
  let out: Omit<AskResponse, 'safety' | 'ms'>;
  const matches = pickCodes(codes, evidence);
  if (matches.length > 0) {
    const rest = termsBeyondCodes(standaloneQuery, matches);
    // A question that asks more than the code's meaning ("which setting do I raise?") follows the
    // record's remedy into the same documentation set, where the setting or check it names is explained.
    const first = matches[0] as CodeMatch;
    const [own, related] = await Promise.all([
      codeSections(deps, first, req.filters, hooks.signal),
      rest.length > 0 ? relatedPassages(deps, rest.join(' '), first, req.filters, hooks.signal) : null,
    ]);
    // The manual's own section about the code first (its troubleshooting page), then what the question asks beyond it.
    const extra = [...own.hits, ...(related?.hits ?? []).filter((h) => !own.hits.some((o) => o.chunkId === h.chunkId))];
    out = { ...codeAnswer(standaloneQuery, matches, extra, { ...own.rowCodes, ...related?.rowCodes }, own.hits), question, standaloneQuery, refused: false };
  } else if (generator) {
    const tl = performance.now();
    const extractive = citeEveryPart(extractiveAnswer(standaloneQuery, passages.slice(0, k), res.rowCodes), res);
    const gen = await generativeAnswer(generator, standaloneQuery, passages.slice(0, k), extractive, hooks, t);
    t.llmMs += performance.now() - tl;
    out = { ...gen, question, standaloneQuery };
  } else {
    out = { ...citeEveryPart(extractiveAnswer(standaloneQuery, passages.slice(0, k), res.rowCodes), res), question, standaloneQuery, refused: false };
    if (generatorError && prefer !== 'extractive') out.fallbackReason = `The language model could not be used: ${generatorError}`;
    else if (prefer === 'generative') out.fallbackReason = 'No language model is installed; the answer quotes the manuals instead.';
  }
  if (!out.refused && evidence.ownModels.length > 0) out = { ...out, answer: `${modelCaveat(evidence)}\n\n${out.answer}` };
  return { ...out, safety: await withReferencedSafety((r) => deps.retrieve(r, hooks.signal), out.citations, req.filters, deps.passagesOf), ...waited(t0, t) };
}

/** The time the technician waited, with the language model's share of it when one ran. */
function waited(t0: number, t: AskTimings): Pick<AskResponse, 'ms' | 'modelMs'> {
  const ms = round2(performance.now() - t0);
  return t.llmMs > 0 ? { ms, modelMs: round2(t.llmMs) } : { ms };
}

/** Said first when the question names a model that no installed manual mentions ("our PX7"). */
function modelCaveat(ev: Evidence): string {
  const names = ev.ownModels.map((n) => `"${ev.words[n] ?? n}"`).join(', ');
  return `The installed manuals do not mention ${names}; check that the manual cited below is the one for your machine.`;
}

function validateQuestion(q: unknown): string {
  if (typeof q !== 'string') throw new EngineError('INVALID_INPUT', 'The question must be text: type a fault code or a few words about the problem.');
  // eslint-disable-next-line no-control-regex
  const clean = q.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (!clean) throw new EngineError('INVALID_INPUT', 'The question is empty. Type a fault code or a few words about the problem.');
  if (clean.length > 2000) throw new EngineError('INVALID_INPUT', `The question is ${clean.length} characters long; keep it under 2,000.`);
  return clean;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineError('CANCELLED', 'The question was cancelled.');
}

/** The defined codes the question names, one record per code and manual, at most MAX_CODES. */
function pickCodes(codes: CodeLookupResponse | null, ev: Evidence): CodeMatch[] {
  if (!codes || ev.definedCodes.length === 0) return [];
  const seen = new Set<string>();
  const out: CodeMatch[] = [];
  for (const m of codes.matches) {
    const key = `${m.key}|${m.manual}|${m.lang ?? 'en'}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(m);
    if (out.length >= MAX_CODES) break;
  }
  return out;
}

type PartialAnswer = Pick<AskResponse, 'answer' | 'mode' | 'citations'> & Pick<AskResponse, 'invalidCitations' | 'fallbackReason' | 'refusal'> & { refused: boolean };

/** The question's content terms that the code records do not already answer (their words, numbers aside). */
function termsBeyondCodes(question: string, matches: CodeMatch[]): string[] {
  const recordTokens = new Set(analyze(matches.map((m) => `${m.code} ${m.key} ${m.title} ${m.description} ${m.cause} ${m.remedy} ${m.manual} ${m.scope.join(' ')} ${m.file.replace(/[/_.-]+/g, ' ')}`).join('\n')));
  return contentTerms(question).filter((t) => !recordTokens.has(t) && !/^\d+$/.test(t));
}

/**
 * Passages about what the question asks beyond the code (`asked`: its words the record does not
 * answer) and the record's remedy, from the code's documentation set (the top folder of its file: the
 * machine's or vendor's manuals) unless the technician chose a folder. The whole question would be
 * planned into parts again and bring back passages about the code's meaning, which the record gives.
 */
async function relatedPassages(deps: AnswerDeps, asked: string, m: CodeMatch, filters?: SearchFilters, signal?: AbortSignal): Promise<Retrieval> {
  return deps.retrieve({ query: `${asked} ${m.remedy || m.description || m.title}`, k: 5, filters: inCodeSet(m, filters), rowRecords: true }, signal);
}

/** The filters narrowed to the code's documentation set (the top folder of its file), unless the technician chose a folder. */
function inCodeSet(m: CodeMatch, filters?: SearchFilters): SearchFilters {
  return { ...filters, pathPrefix: filters?.pathPrefix ?? (m.file.includes('/') ? `${m.file.split('/')[0]}/` : undefined) };
}

/**
 * The sections of the code's documentation set whose heading names the code ("Troubleshooting
 * Overvoltage Fault 34", "Alarm 9 - homing fail"): the manual's own page about it, which says more
 * (the checks, the settings) than its table row. Empty when the manuals have no such section.
 */
async function codeSections(deps: AnswerDeps, m: CodeMatch, filters?: SearchFilters, signal?: AbortSignal): Promise<Retrieval> {
  // Keyword search alone: a heading that names the code is found by its words, and a query embedding
  // plus a vector search per code answer cost e5 libraries a third of their ask p95 (80 -> 115 ms).
  const res = await deps.retrieve({ query: `${spokenCode(m) ?? m.code} ${m.title}`, k: 10, mode: 'keyword', filters: inCodeSet(m, filters), rowRecords: true }, signal);
  return { ...res, hits: res.hits.filter((h) => h.kind !== 'code' && detectCodes(h.section).some((c) => c.key === m.key)) };
}

/** A code question: the code's record first (meaning, cause, remedy, page), then passages that add to it. */
function codeAnswer(question: string, matches: CodeMatch[], passages: SearchHit[], rows: Retrieval['rowCodes'], sections: SearchHit[] = []): PartialAnswer {
  const citations: Citation[] = [];
  const lines: string[] = [];
  for (const m of matches) {
    const n = citations.length + 1;
    citations.push(toCitation(n, { ...m, chunkId: `code:${m.key}:${m.file}`, kind: 'code' }));
    const body = codeAnswerLines(m);
    lines.push(`${body.map(answerText).join('\n')} [${n}]`);
  }
  // Passages and rows that explain the code further (the setting to change, what to check); never
  // other rows of the code tables, and nothing when the question asks only the code's meaning (no passages).
  const codeTexts = matches.map((m) => m.text.trim().replace(/^[*+-]\s+/, ''));
  const codeFiles = new Set(matches.map((m) => m.file));
  const seen = new Set<string>();
  const extra = passages.filter(
    (p) => p.kind !== 'code' && !(p.kind === 'table-row' && codeFiles.has(p.file)) && !codeTexts.some((c) => p.text.includes(c)) && !seen.has(p.chunkId) && seen.add(p.chunkId),
  );
  const extraTerms = [...new Set(analyze(matches.map((m) => `${m.title} ${m.remedy || m.description}`).join(' ')))];
  const parts = asRecords(extractParts(question, extra, { maxPassages: 2, maxUnits: 4, maxChars: 700, keepShare: 0.6, extraTerms }), extra, rows);
  const numbers = new Map<number, number>();
  for (const p of parts) {
    if (!numbers.has(p.passage)) {
      const n = citations.length + 1;
      numbers.set(p.passage, n);
      citations.push(toCitation(n, extra[p.passage] as SearchHit));
    }
  }
  const more = renderParts(parts, (i) => numbers.get(i) as number);
  const blocks = [lines.join('\n\n'), ...(more ? [more] : [])];
  // The rest of the manual's own page about the code (its remedies are often one section each), by heading.
  const headings: string[] = [];
  for (const h of sections) {
    // Below the page's own title: "Limit regenerated power … > Choosing a value".
    const heading = h.section.split(' > ').slice(1).join(' > ');
    if (!heading || citations.some((c) => c.chunkId === h.chunkId) || headings.some((x) => x.startsWith(`${heading} [`))) continue;
    if (headings.length >= MAX_SECTION_LINKS) break;
    const n = citations.length + 1;
    citations.push(toCitation(n, h));
    headings.push(`${answerText(heading)} [${n}]`);
  }
  if (headings.length > 0) blocks.push(`Also in ${answerText(sections[0]?.manual ?? 'the manual')}: ${headings.join('; ')}`);
  return { answer: blocks.join('\n\n'), mode: 'code', citations, refused: false };
}

/** Sections of a code's own page a code answer names besides what it quotes. */
const MAX_SECTION_LINKS = 5;

/**
 * A two-part question's answer answers every part: a part none of whose own top passages is cited
 * gets its best sentences from them (cited), after the answer to the whole question.
 */
function citeEveryPart(answer: PartialAnswer, res: Retrieval): PartialAnswer {
  if (!res.parts || res.parts.length < 2) return answer;
  const citations = [...answer.citations];
  const blocks = [answer.answer];
  for (const part of res.parts) {
    const own = part.hits.filter((h) => h.kind !== 'code');
    if (own.length === 0 || own.some((h) => citations.some((c) => c.chunkId === h.chunkId))) continue;
    const parts = asRecords(extractParts(part.clause, own, { maxPassages: 2, maxUnits: 3, maxChars: 600 }), own, res.rowCodes);
    const numbers = new Map<number, number>();
    for (const p of parts) {
      if (numbers.has(p.passage)) continue;
      const hit = own[p.passage] as SearchHit;
      const known = citations.find((c) => c.chunkId === hit.chunkId);
      const n = known ? known.n : citations.length + 1;
      if (!known) citations.push(toCitation(n, hit));
      numbers.set(p.passage, n);
    }
    const text = renderParts(parts, (i) => numbers.get(i) as number);
    if (text) blocks.push(text);
  }
  return { ...answer, answer: blocks.join('\n\n'), citations };
}

/**
 * Quoted parts as the answer shows them: a table row that shows a fault-code record reads as the
 * record (code and title, meaning, cause, remedy), not as the file's raw fields (`approved: true`,
 * `gui_layout: …`, quoted CSV cells). Parts are chosen from the rows as written; citations keep them so.
 */
function asRecords(parts: ExtractedPart[], passages: SearchHit[], rows: Retrieval['rowCodes']): ExtractedPart[] {
  if (!rows) return parts;
  return parts.map((p) => {
    const hit = passages[p.passage];
    const m = hit ? rows[hit.chunkId] : undefined;
    return m && hit?.kind === 'table-row' ? { ...p, text: codeAnswerLines(m).join('\n') } : p;
  });
}

/** The best sentences / steps / rows of the top passages, cited. */
export function extractiveAnswer(question: string, passages: SearchHit[], rows?: Retrieval['rowCodes']): PartialAnswer {
  const parts = extractParts(question, passages);
  const chosen = asRecords(parts.length > 0 ? parts : passages.slice(0, 1).map((p) => ({ text: p.text.trim(), passage: 0 })), passages, rows);
  const numbers = new Map<number, number>();
  const citations: Citation[] = [];
  for (const p of chosen) {
    if (!numbers.has(p.passage)) {
      const n = citations.length + 1;
      numbers.set(p.passage, n);
      citations.push(toCitation(n, passages[p.passage] as SearchHit));
    }
  }
  return { answer: renderParts(chosen, (i) => numbers.get(i) as number), mode: 'extractive', citations, refused: false };
}

/**
 * The passages as the model reads them: those the extractive answer quotes first, each shortened to
 * the sentences it quotes (what the answer needs), then the others whole, in rank order. Cited
 * back as the full passages.
 */
export function promptSources(question: string, passages: SearchHit[]): { hit: SearchHit; text: string }[] {
  const parts = extractParts(question, passages);
  const chosen = new Map<number, string[]>();
  for (const p of parts) chosen.set(p.passage, [...(chosen.get(p.passage) ?? []), p.text]);
  const first = [...chosen.keys()].sort((a, b) => a - b).map((i) => ({ hit: passages[i] as SearchHit, text: (chosen.get(i) ?? []).join('\n') }));
  const rest = passages.filter((_, i) => !chosen.has(i)).map((hit) => ({ hit, text: hit.text }));
  return [...first, ...rest];
}

async function generativeAnswer(
  gen: AnswerGenerator,
  question: string,
  passages: SearchHit[],
  extractive: PartialAnswer,
  hooks: AskHooks,
  t: AskTimings,
): Promise<PartialAnswer> {
  const ordered = promptSources(question, passages);
  const sources = ordered.map((s, i) => toCitation(i + 1, s.hit));
  const answerTokens = Math.min(ANSWER_TOKENS, Math.floor(gen.contextSize / 4));
  const prompt = budgetPrompt({
    question,
    sources: sources.map((c, i) => ({ ...c, text: ordered[i]?.text ?? c.text })),
    countTokens: (s) => gen.countTokens(s),
    contextSize: gen.contextSize,
    answerTokens,
    maxPromptTokens: MAX_PROMPT_TOKENS,
  });
  // A loop or an echo of the prompt is stopped as soon as it shows (checked every few chunks): it would be rejected anyway.
  const stop = new AbortController();
  const cancel = () => stop.abort();
  hooks.signal?.addEventListener('abort', cancel, { once: true });
  if (hooks.signal?.aborted) stop.abort();
  let streamed = '';
  let stopped: string | null = null;
  let sinceCheck = 0;
  let r: Awaited<ReturnType<AnswerGenerator['generate']>>;
  try {
    r = await gen.generate({
      system: prompt.system,
      user: prompt.user,
      example: EXAMPLE_TURN,
      grammar: ANSWER_GRAMMAR,
      maxTokens: answerTokens,
      signal: stop.signal,
      onToken: (chunk) => {
        hooks.onToken?.(chunk);
        streamed += chunk;
        if (++sinceCheck < LOOP_CHECK_EVERY || stopped !== null) return;
        sinceCheck = 0;
        stopped = streamingStop(streamed);
        if (stopped !== null) stop.abort();
      },
    });
  } finally {
    hooks.signal?.removeEventListener('abort', cancel);
  }
  t.firstTokenMs = r.firstTokenMs;
  t.promptTokens = prompt.promptTokens;
  t.tokens += r.chunks;
  if (hooks.signal?.aborted || (r.aborted && stopped === null)) throw new EngineError('CANCELLED', 'The answer was cancelled.');
  const draft: GeneratedDraft = {
    question,
    text: r.text.trim(),
    sources: sources.filter((s) => prompt.included.includes(s.n)).map((s) => ({ n: s.n, manual: s.manual, section: s.section, page: s.page, text: s.text })),
    ...(stopped !== null ? { stopped } : {}),
  };
  hooks.onDraft?.(draft);
  const v = judgeDraft(draft);
  if (v.kind === 'fell back') {
    return { ...extractive, invalidCitations: v.invalid.length > 0 ? v.invalid : undefined, fallbackReason: `${v.reason}, so the answer quotes the manuals instead.` };
  }
  const cited = sources.filter((s) => v.valid.includes(s.n));
  return {
    answer: v.text,
    mode: 'generative',
    citations: withExtractiveSources(cited, sources, extractive.citations),
    invalidCitations: v.invalid.length > 0 ? v.invalid : undefined,
    refused: false,
  };
}

/**
 * The generated answer's citations, then the passages the extractive answer would have quoted (by
 * their number in the prompt): their DANGER / WARNING / lockout text is shown with a generated
 * answer too, even when the model left those passages out.
 */
function withExtractiveSources(cited: Citation[], sources: Citation[], extractive: Citation[]): Citation[] {
  const out = [...cited];
  let next = sources.length + 1;
  for (const e of extractive) {
    if (out.some((c) => c.chunkId === e.chunkId)) continue;
    // A passage outside the prompt (a two-part question's own top passage) gets a number after them.
    out.push(sources.find((x) => x.chunkId === e.chunkId) ?? { ...e, n: next++ });
  }
  return out;
}

/** Asks the model to rewrite a follow-up; keeps the rule-based rewrite when the model's is not usable. */
async function llmRewrite(gen: AnswerGenerator, question: string, conversation: AskRequest['conversation'] & object, byRules: string, signal?: AbortSignal): Promise<string> {
  const turns = recentTurns(conversation)
    .map((c) => `Technician: ${promptLabel(c.question)}\nAssistant: ${promptLabel(c.answer.slice(0, 300))}`)
    .join('\n');
  try {
    const r = await gen.generate({
      system: 'Rewrite the technician\'s last question so that it can be understood without the conversation. Keep fault codes, machine names and settings exactly. Reply with the rewritten question only.',
      user: `${turns}\nLast question: ${promptLabel(question)}\nRewritten question:`,
      maxTokens: 60,
      signal,
    });
    const out = r.text.trim().split('\n')[0]?.trim() ?? '';
    // Usable only if it keeps the follow-up's own words and brings what the rules carried over.
    const have = new Set(analyze(out));
    const needed = analyze(byRules);
    const kept = needed.filter((x) => have.has(x)).length;
    if (out.length > 0 && out.length <= 400 && needed.length > 0 && kept / needed.length >= 0.6) return out;
  } catch {
    // fall back to the rules
  }
  return byRules;
}

function refusalText(reason: string): string {
  return `The installed manuals do not answer this. ${reason}`;
}

function refusal(reason: string, searched: string, hits: SearchHit[], codes: CodeLookupResponse | null): Refusal {
  const closest: Refusal['closest'] = [];
  const seen = new Set<string>();
  for (const h of hits) {
    const key = `${h.pack ?? ''}|${h.file}|${h.section}`;
    if (seen.has(key)) continue;
    seen.add(key);
    closest.push({ manual: h.manual, file: h.file, section: h.section, page: h.page, ...(h.pack ? { pack: h.pack } : {}) });
    if (closest.length >= 3) break;
  }
  const near = codes?.nearest ?? [];
  const hint = near.length > 0 ? ` Codes that are defined nearby: ${near.slice(0, 3).map((n) => `${n.code} (${n.title}, ${n.manual})`).join('; ')}.` : '';
  return { reason: `${reason}${hint}`, searched, closest };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The retrieval an answer makes: at least 10 passages, each retriever's top 10, table rows as their records. */
export function answerRetrieval(query: string, k: number = DEFAULT_ANSWER_K, filters?: SearchFilters): RetrieveRequest {
  return { query, k: Math.max(k, 10), filters, rankingDepth: 10, rowRecords: true };
}

/**
 * The evidence the gate judges for a retrieval, gathered as `ask` gathers it (one place: scripts that replay the
 * gate, scripts/calibrate-gate.ts, call it too). `passages`: the retrieval's passages as the answer will cite them
 * (reranked when a reranker ran).
 *
 * The gate's thresholds are calibrated on keyword evidence. In hybrid mode it judges the keyword channel's own top
 * passages (plus the agreement of both channels): the passages vector search adds are what an answer may cite, not
 * proof that the manuals cover the question, since a nearest neighbour always exists.
 */
export async function gateEvidence(
  deps: Pick<AnswerDeps, 'vocabulary' | 'spread' | 'titles'>,
  question: string,
  res: Retrieval,
  passages: SearchHit[],
  filters?: SearchFilters,
): Promise<{ evidence: Evidence; gateHits: SearchHit[] }> {
  const codes = res.codes;
  const ownTop = (hs: SearchHit[]) => hs.filter((h) => h.kind !== 'code').slice(0, 5).map((h) => h.chunkId);
  const keywordTop = res.mode === 'hybrid' ? ownTop(res.rankings.keyword) : undefined;
  const vectorTop = res.mode === 'hybrid' ? ownTop(res.rankings.vector) : undefined;
  const keywordPassages = res.mode === 'hybrid' ? res.rankings.keyword.filter((h) => h.kind !== 'code') : [];
  const gateHits = keywordPassages.length > 0 ? keywordPassages : passages;
  const [vocab, spreadOf] = await Promise.all([
    deps.vocabulary ? deps.vocabulary(vocabularyTerms(question, gateHits), { packs: filters?.packs }) : null,
    deps.spread ? deps.spread(spreadTerms(question, gateHits), { packs: filters?.packs }) : null,
  ]);
  const vocabulary = vocab ? (t: string) => vocab.get(t) ?? 1 : undefined; // not looked up: a top passage holds it
  // Not looked up (the overlap cannot be generic-only): 0, no term is generic.
  const spread = spreadOf ? { of: (t: string) => spreadOf.spread.get(t) ?? 0, docSets: spreadOf.docSets } : undefined;
  const scope = deps.vocabulary && res.scope && res.scopeFolders ? await scopeVocabulary(deps, question, res.scope, res.scopeFolders, codes, filters) : undefined;
  const codeSetVocabulary = deps.vocabulary ? await codeSetCounts(deps, question, codes, filters) : undefined;
  const evidence = collectEvidence({ question, hits: gateHits, codes, keywordTop, vectorTop, vocabulary, scope, spread, products: res.scope, codeSetVocabulary });
  return { evidence, gateHits };
}

/**
 * For the gate: in how many passages of the documentation sets that define the question's codes (the top
 * folders of the records' files) each word naming the machine before the code, and each name the question
 * gives, occurs. Undefined when the question names no such words, or a record has no folder (whose manuals
 * they are cannot be told).
 */
async function codeSetCounts(
  deps: Pick<AnswerDeps, 'vocabulary'>,
  question: string,
  codes: CodeLookupResponse | null,
  filters?: SearchFilters,
): Promise<((term: string) => number) | undefined> {
  const matches = codes?.matches ?? [];
  const terms = [...new Set([...machineWords(question), ...questionNames(question)])];
  if (!deps.vocabulary || matches.length === 0 || terms.length === 0 || matches.some((m) => !m.file.includes('/'))) return undefined;
  const counts = new Map<string, number>();
  for (const folder of new Set(matches.map((m) => m.file.split('/')[0] as string))) {
    for (const [t, n] of await deps.vocabulary(terms, { packs: filters?.packs, pathPrefix: `${folder}/` })) counts.set(t, (counts.get(t) ?? 0) + n);
  }
  return (t) => counts.get(t) ?? 0;
}

/**
 * The named products' vocabulary for the gate: in how many passages of their folders each of the
 * question's other names occurs (summed over the folders). Only those names are looked up.
 */
export async function scopeVocabulary(
  deps: Pick<AnswerDeps, 'vocabulary' | 'titles'>,
  question: string,
  names: string[],
  folders: string[],
  codes: CodeLookupResponse | null,
  filters?: SearchFilters,
): Promise<EvidenceInput['scope']> {
  // The question's other names: does the named product's own documentation use them?
  const terms = [...new Set(scopeCandidates(question, names, codes))];
  const counts = new Map<string, number>();
  if (terms.length > 0 && deps.vocabulary) {
    for (const folder of folders) {
      for (const [t, n] of await deps.vocabulary(terms, { packs: filters?.packs, pathPrefix: `${folder}/` })) counts.set(t, (counts.get(t) ?? 0) + n);
    }
  }
  const titles = deps.titles ? await deps.titles(folders, filters) : [];
  return { names, vocabulary: (t) => counts.get(t) ?? 0, folders, titles };
}
