/**
 * The answer check of a language model: a sample of questions is asked twice on a library,
 * extractive and `prefer: generative`, and the model passes when
 *  - at least half of the answers it wrote were accepted by the generated-answer check
 *    (native/answer/generated-check.ts; a rejected one falls back to the extractive answer), and
 *  - where the questions carry answer facts, the accepted answers hold at least as many of them as
 *    the extractive answers to the same questions.
 * A question file without answer facts is judged on the acceptance rate alone (the verdict says so).
 * The verdict is recorded beside the model (native/llm/answer-check.ts); only a model that passed
 * writes answers by default (`prefer: auto`). `manualdesk models check` and
 * scripts/eval-generation.ts both run this one implementation.
 *
 * Question file: JSON lines, one question each. Only `query` (or `question`) is needed; `id`,
 * `type` (questions are sampled evenly over types) and `answer_facts` (short facts a right answer
 * holds) are optional: the dev-set format (shared/eval/README.md) is accepted as it is.
 */
import type { AskHooks, AskRequest, AskResponse } from '../contract/answer.js';
import { EngineError, type Result } from '../contract/errors.js';
import { analyze } from '../text/analyze.js';

export interface CheckQuestion {
  id: string;
  /** Sampling group; 'question' when the file gives none. */
  type: string;
  query: string;
  answer_facts?: string[];
}

/** Question types answered from a code record: the model never writes those answers. */
export const CODE_TYPES = new Set(['code_exact', 'code_variant']);

/** Parses a question file (JSON lines); throws INVALID_INPUT naming the first bad line. */
export function parseCheckQuestions(text: string, file = 'the question file'): CheckQuestion[] {
  const out: CheckQuestion[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    const n = i + 1;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new EngineError('INVALID_INPUT', `${file}, line ${n}: not valid JSON. Each line must be one question, e.g. {"query": "How do I reset the pump?"}.`);
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new EngineError('INVALID_INPUT', `${file}, line ${n}: expected an object such as {"query": "How do I reset the pump?"}.`);
    }
    const r = raw as Record<string, unknown>;
    const query = typeof r.query === 'string' ? r.query : typeof r.question === 'string' ? r.question : '';
    if (query.trim() === '') {
      throw new EngineError('INVALID_INPUT', `${file}, line ${n}: no question text. Give it as "query": "..." (the dev-set format) or "question": "...".`);
    }
    const facts = r.answer_facts;
    if (facts !== undefined && facts !== null && (!Array.isArray(facts) || !facts.every((f) => typeof f === 'string'))) {
      throw new EngineError('INVALID_INPUT', `${file}, line ${n}: "answer_facts" must be a list of short texts, e.g. ["3.5 bar", "relief valve"], or left out.`);
    }
    out.push({
      id: typeof r.id === 'string' && r.id.trim() !== '' ? r.id : typeof r.id === 'number' ? String(r.id) : `line ${n}`,
      type: typeof r.type === 'string' && r.type.trim() !== '' ? r.type : 'question',
      query,
      ...(Array.isArray(facts) ? { answer_facts: facts as string[] } : {}),
    });
  }
  if (out.length === 0) throw new EngineError('INVALID_INPUT', `${file} holds no questions: write one JSON object per line, e.g. {"query": "How do I reset the pump?"}.`);
  return out;
}

/** `n` questions spread over the types in proportion (at least one each), evenly over each type's ids. */
export function stratifiedSample(questions: CheckQuestion[], n: number): CheckQuestion[] {
  const byType = new Map<string, CheckQuestion[]>();
  for (const q of [...questions].sort((a, b) => a.id.localeCompare(b.id))) byType.set(q.type, [...(byType.get(q.type) ?? []), q]);
  const total = questions.length;
  const out: CheckQuestion[] = [];
  for (const qs of byType.values()) {
    const take = Math.min(qs.length, Math.max(1, Math.round((qs.length / total) * n)));
    for (let i = 0; i < take; i++) out.push(qs[Math.floor((i * qs.length) / take)] as CheckQuestion);
  }
  return out.slice(0, Math.max(n, byType.size));
}

/** The questions the check asks: code-record types left out (unless allTypes), then a sample of `sample`. */
export function selectCheckQuestions(all: CheckQuestion[], opts: { sample: number; allTypes?: boolean }): CheckQuestion[] {
  const pool = opts.allTypes ? all : all.filter((q) => !CODE_TYPES.has(q.type));
  return stratifiedSample(pool, opts.sample);
}

/** Whether a fact is in the answer: at least `share` of its terms (scripts/eval-answers.ts scores the same way). */
export function factPresent(fact: string, answerTokens: Set<string>, share: number): boolean {
  const terms = [...new Set(analyze(fact))];
  if (terms.length === 0) return true;
  return terms.filter((t) => answerTokens.has(t)).length / terms.length >= share - 1e-9;
}

function factsIn(q: CheckQuestion, a: AskResponse): number {
  if (q.type === 'out_of_scope' || a.refused) return 0;
  const tokens = new Set(analyze([a.answer, ...a.safety.map((s) => s.text)].join('\n')));
  return (q.answer_facts ?? []).filter((f) => factPresent(f, tokens, 2 / 3)).length;
}

export type CheckOutcome = 'accepted' | 'fell back' | 'model refused' | 'not generated';

export interface CheckRow {
  id: string;
  type: string;
  outcome: CheckOutcome;
  /** Why the generated answer was not kept (fell back). */
  reason?: string;
  /** From the question (retrieval and prompt reading included) to the first streamed token. */
  firstTokenMs: number | null;
  tokens: number;
  tokensPerS: number | null;
  totalMs: number;
  factsGenerated: number;
  factsExtractive: number;
  factsAsked: number;
  answer: string;
  /** The text the model streamed (kept or rejected). */
  draft: string;
}

export type CheckAsk = (req: AskRequest, hooks?: AskHooks) => Promise<Result<AskResponse>>;

/** Asks each question extractive, then generative; a failed ask is thrown as its engine error. */
export async function runAnswerCheck(
  ask: CheckAsk,
  questions: CheckQuestion[],
  opts: { onRow?: (row: CheckRow, done: number, total: number) => void; signal?: AbortSignal } = {},
): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  for (const q of questions) {
    const ex = await ask({ question: q.query, prefer: 'extractive' }, { signal: opts.signal });
    if (!ex.ok) throw new EngineError(ex.error.code, `Question ${q.id}: ${ex.error.message}`);
    const t0 = performance.now();
    let first: number | null = null;
    let last = 0;
    let tokens = 0;
    let draft = '';
    const gen = await ask(
      { question: q.query, prefer: 'generative' },
      {
        signal: opts.signal,
        onToken: (chunk) => {
          draft += chunk;
          const now = performance.now() - t0;
          if (first === null) first = now;
          last = now;
          tokens++;
        },
      },
    );
    const totalMs = performance.now() - t0;
    if (!gen.ok) throw new EngineError(gen.error.code, `Question ${q.id}: ${gen.error.message}`);
    const g = gen.value;
    const firstMs = first as number | null;
    const outcome: CheckOutcome = g.mode === 'generative' ? (g.refused ? 'model refused' : 'accepted') : tokens > 0 ? 'fell back' : 'not generated';
    const row: CheckRow = {
      id: q.id,
      type: q.type,
      outcome,
      ...(g.fallbackReason !== undefined ? { reason: g.fallbackReason } : {}),
      firstTokenMs: firstMs,
      tokens,
      tokensPerS: firstMs !== null && tokens > 1 && last > firstMs ? ((tokens - 1) * 1000) / (last - firstMs) : null,
      totalMs,
      factsGenerated: factsIn(q, g),
      factsExtractive: factsIn(q, ex.value),
      factsAsked: q.type === 'out_of_scope' ? 0 : (q.answer_facts ?? []).length,
      answer: g.answer,
      draft,
    };
    rows.push(row);
    opts.onRow?.(row, rows.length, questions.length);
  }
  return rows;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[idx] as number;
}

export interface CheckVerdict {
  passed: boolean;
  /** One line: why it passed or failed (recorded beside the model, shown by `models list`). */
  summary: string;
  /** Whether answer facts were compared (false: the questions carry none, acceptance alone decided). */
  factsCompared: boolean;
  questions: number;
  /** Questions the model wrote an answer for (accepted + fell back + refused). */
  generated: number;
  accepted: number;
  fellBack: number;
  modelRefused: number;
  /** Not written by the model: answered from a code record, or refused by the evidence gate. */
  notGenerated: number;
  /** Fell-back reasons with quoted text and percentages folded, and how often each. */
  reasons: { reason: string; count: number }[];
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
  tokensPerS: number | null;
  endToEndP50Ms: number | null;
  endToEndP95Ms: number | null;
  factsGenerated: number;
  factsExtractive: number;
  factsAsked: number;
}

/** The pass rule on the rows of one run. */
export function judgeAnswerCheck(rows: CheckRow[]): CheckVerdict {
  const ran = rows.filter((r) => r.outcome !== 'not generated');
  const accepted = rows.filter((r) => r.outcome === 'accepted');
  const sorted = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
  const p = (xs: number[], q: number) => (xs.length === 0 ? null : Math.round(percentile(xs, q)));
  const ttft = sorted(ran.map((r) => r.firstTokenMs));
  const tps = sorted(ran.map((r) => r.tokensPerS));
  const total = sorted(ran.map((r) => r.totalMs));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const factsGenerated = sum(accepted.map((r) => r.factsGenerated));
  const factsExtractive = sum(accepted.map((r) => r.factsExtractive));
  const factsAsked = sum(accepted.map((r) => r.factsAsked));
  const factsCompared = rows.some((r) => r.factsAsked > 0);
  const acceptedShare = ran.length === 0 ? 0 : accepted.length / ran.length;
  const passed = ran.length > 0 && acceptedShare >= 0.5 && (!factsCompared || factsGenerated >= factsExtractive);
  const reasons = new Map<string, number>();
  for (const r of rows.filter((x) => x.outcome === 'fell back')) {
    const key = (r.reason ?? 'no reason given').replace(/"[^"]*"/g, '"…"').replace(/\d+%/g, 'N%');
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  const facts = factsCompared ? `, facts ${factsGenerated} vs extractive ${factsExtractive}` : ', answer facts not compared (the questions have none)';
  const summary =
    ran.length === 0
      ? `failed: the model wrote no answer to ${rows.length} question(s) (all answered from code records or refused for lack of evidence)`
      : passed
        ? `passed: ${accepted.length} of ${ran.length} generated answers accepted${facts}`
        : `failed: ${accepted.length} of ${ran.length} generated answers accepted (at least half needed)${factsCompared ? `, facts ${factsGenerated} vs extractive ${factsExtractive} (no fewer allowed)` : ', answer facts not compared (the questions have none)'}`;
  return {
    passed,
    summary,
    factsCompared,
    questions: rows.length,
    generated: ran.length,
    accepted: accepted.length,
    fellBack: rows.filter((r) => r.outcome === 'fell back').length,
    modelRefused: rows.filter((r) => r.outcome === 'model refused').length,
    notGenerated: rows.length - ran.length,
    reasons: [...reasons].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
    ttftP50Ms: p(ttft, 0.5),
    ttftP95Ms: p(ttft, 0.95),
    tokensPerS: tps.length === 0 ? null : Number(percentile(tps, 0.5).toFixed(1)),
    endToEndP50Ms: p(total, 0.5),
    endToEndP95Ms: p(total, 0.95),
    factsGenerated,
    factsExtractive,
    factsAsked,
  };
}

/** The figures kept in the result file beside the model. */
export function checkFigures(v: CheckVerdict, questionSet: string): Record<string, number | string> {
  const out: Record<string, number | string> = {
    questions: v.questions,
    generated: v.generated,
    accepted: v.accepted,
    fellBack: v.fellBack,
    modelRefused: v.modelRefused,
    factsGenerated: v.factsGenerated,
    factsExtractive: v.factsExtractive,
    rule: v.factsCompared ? 'acceptance and answer facts' : 'acceptance only (no answer facts)',
    questionSet,
  };
  for (const k of ['ttftP50Ms', 'ttftP95Ms', 'tokensPerS', 'endToEndP50Ms'] as const) {
    const x = v[k];
    if (x !== null) out[k] = x;
  }
  return out;
}
