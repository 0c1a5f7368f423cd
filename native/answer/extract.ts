/**
 * Extractive answers: the sentences, steps and table rows of the best passages that answer the
 * question, in the manual's order and wording, each cited `[n]`. Pure.
 *
 * A passage is cut into units: each line that is a step, list item, table row, heading or code
 * line stays whole; a prose line is cut into sentences. A unit scores the question's words it
 * contains (a thesaurus alternative counts; the terms of one hyphenated word count once), each
 * weighted by how few of the candidate passages contain it.
 *
 * The primary passage is the one covering the most of the question, with a prior for retrieval's
 * rank. From it come the units scoring at least half of its best, each with what completes it: a
 * step its numbered run, a heading its subsection, a lead-in ending in ":" its list, the best
 * sentence the sentences after it, numbered steps the "Then …" step written after them. A line of
 * another passage that carries more of the question's words than any line of the primary one
 * competes with those units for the budget. Other passages about the question add their best units.
 * The primary passage is cited first.
 */
import type { CodeMatch, SearchHit } from '../contract/api.js';
import type { Citation } from '../contract/answer.js';
import { codeDetail, spokenCode } from '../contract/codes.js';
import { sentenceRanges } from '../chunk/sentences.js';
import { analyze, analyzeQuery } from '../text/analyze.js';
import { passageTokens, sourceOf, termAlternatives } from './evidence.js';
import { answerText } from './sanitize.js';

export interface Unit {
  text: string;
  /** Index of the passage it comes from (in the candidates given). */
  passage: number;
  /** Order inside the passage. */
  order: number;
  kind: 'step' | 'item' | 'row' | 'heading' | 'sentence' | 'code';
  score: number;
  /** The last unit of its line (a sentence that ends its paragraph). */
  endsLine?: boolean;
}

/** A passage to quote from: its text and kind, and its labels where known. */
export type Candidate = Pick<SearchHit, 'text' | 'kind'> & Partial<Pick<SearchHit, 'section' | 'manual' | 'file'>>;

export interface ExtractOptions {
  /** Passages considered (best first). Default 3. */
  maxPassages?: number;
  /** Units kept in all. Default 8. */
  maxUnits?: number;
  /** Characters of answer text at most (whole units). Default 1400. */
  maxChars?: number;
  /** Keep units scoring at least this share of the best one. Default 0.5. */
  keepShare?: number;
  /** Extra terms that count like the question's (a named code's definition words). */
  extraTerms?: string[];
}

export interface ExtractedPart {
  text: string;
  /** Index into the candidates. */
  passage: number;
}

const STEP = /^\s*(?:\d{1,3}[.)]|step\s+\d+[:.)]?|第\s*\d+\s*步)\s+/i;
const ITEM = /^\s*[-*•·▪◦‣]\s+/;
const HEADING = /^\s*#{1,6}\s|^\s*=+\s/;
/** How much retrieval's rank weighs in choosing the primary passage: score × (1 + RANK_PRIOR / rank). */
const RANK_PRIOR = 1.5;
/** Another passage adds units when its best unit reaches this share of the best unit of all. */
const RELEVANT_SHARE = 0.6;
/** How much a code-only passage's coverage counts in choosing the primary passage, unless the question asks how to do something. */
const CODE_ONLY_PRIOR = 0.5;
const LIST_KINDS = new Set<Unit['kind']>(['step', 'item', 'row', 'code']);
const LEAD_IN = /[:：]$/;
/** A line that is all bold, a label above what follows ("**Troubleshooting Procedure**", "__Solution__"). */
const LABEL_LINE = /^(\*\*|__)[^*_\n]{1,60}\1[:：]?$/;
/** A question that asks what to do about something ("…, what do I do?", "how do I fix it?"). */
const WHAT_TO_DO = /\bwhat\s+(?:do|should|can|must)\s+(?:i|we|you)\s+do\b|\bhow\s+(?:do|can|should)\s+(?:i|we|you)\s+(?:fix|solve|clear|recover)\b|怎么办|如何处理|怎么处理/i;
/** A line that only joins the items around it ("or", "and", "或者"). */
const JOINER = /^(?:or|and|and\/or|then|或|或者|和|以及|然后)[:：,，]?$/i;
const isJoiner = (u: Unit) => u.kind === 'sentence' && JOINER.test(u.text);
const STEP_KINDS = new Set<Unit['kind']>(['step']);
const ITEM_KINDS = new Set<Unit['kind']>(['item']);
/** A line that stops on a word no sentence ends with (a passage cut mid-sentence). */
const CUT_OFF = /\b(?:with|to|the|a|an|and|or|of|for|by|in|on|at|from|as|that|using|via|into|your|its|then)\s*$/i;
/** Sentences before the best one in its paragraph at most, for the paragraph to come from its start. */
const PARAGRAPH_BACK = 8;
/** A sentence that its paragraph continues after (not the last of its line). */
const isMidParagraph = (u: Unit) => u.kind === 'sentence' && u.endsLine === false;
/** A question that asks how to do something ("how do I calibrate…", "how to…", "怎么/如何…"). */
const HOW_TO = /^\s*(?:how\s+(?:do|can|should|would)\s+(?:i|we|you)\b|how\s+to\b)|怎么|怎样|如何/i;

/** A code fence line (```` ``` ```` or `~~~`, with an optional info string). */
const FENCE = /^\s*(`{3,}|~{3,})/;

/**
 * Cuts a passage into answer units (pure): a fenced code block is one unit, fences included (a
 * passage from an older library, without fences, reads its code lines as rows or sentences).
 */
export function passageUnits(hit: Pick<SearchHit, 'text' | 'kind'>, passage: number): Unit[] {
  if (hit.kind === 'table-row' || hit.kind === 'code') {
    return [{ text: hit.text.trim(), passage, order: 0, kind: 'row', score: 0, endsLine: true }];
  }
  const units: Unit[] = [];
  let order = 0;
  const push = (text: string, kind: Unit['kind'], endsLine = true) => units.push({ text, passage, order: order++, kind, score: 0, endsLine });
  const lines = hit.text.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const raw = lines[k] as string;
    const line = raw.trim();
    if (!line) continue;
    const fence = FENCE.exec(raw);
    if (fence) {
      const close = new RegExp(`^\\s*${(fence[1] as string)[0] === '`' ? '`' : '~'}{${(fence[1] as string).length},}\\s*$`);
      let end = k + 1;
      while (end < lines.length && !close.test(lines[end] as string)) end++;
      const body = lines.slice(k, Math.min(end + 1, lines.length));
      if (end >= lines.length) body.push((fence[1] as string));
      if (body.slice(1, -1).some((l) => l.trim())) push(body.join('\n'), 'code');
      k = end;
      continue;
    }
    // A Markdown table's delimiter row (|---|:--:|) is layout, not content.
    if (/^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?$/.test(line)) continue;
    if (STEP.test(line)) push(line, 'step');
    else if (ITEM.test(line)) push(line, 'item');
    else if (HEADING.test(line)) push(line, 'heading');
    else if (/^\|.*\|$/.test(line) || /^[^\s=]+=\S/.test(line)) push(line, 'row');
    else {
      const ranges = sentenceRanges(line);
      ranges.forEach(([s, e], j) => {
        const text = line.slice(s, e).trim();
        if (text) push(text, 'sentence', j === ranges.length - 1);
      });
      const last = units[units.length - 1];
      if (last && last.kind === 'sentence') last.endsLine = true;
    }
  }
  return units;
}

interface Scorer {
  score(text: string): number;
  /** How many of the question's words the text carries (a word's alternatives count as the word). */
  words(text: string): number;
  /** The score of candidate passage i as a whole (its tokens are already analyzed). */
  passage(i: number): number;
}

/**
 * The question's terms grouped by the word they come from: "power-on" yields "poweron" and "power",
 * one word of the question, so it counts once. A Chinese run is many words: each term stands alone.
 */
export function termGroups(question: string, terms: string[]): string[][] {
  const left = new Set(terms);
  const groups: string[][] = [];
  for (const m of question.matchAll(/[^\s,.;:!?，。；：！？'"“”]+/gu)) {
    const mine = [...new Set(analyzeQuery(m[0], { expand: false }).terms)].filter((t) => left.has(t));
    for (const t of mine) left.delete(t);
    if (/\p{Script=Han}/u.test(m[0])) groups.push(...mine.map((t) => [t]));
    else if (mine.length > 0) groups.push(mine);
  }
  return [...groups, ...[...left].map((t) => [t])];
}

/**
 * Weights the question's words by rarity among the candidates (a word every passage has says little).
 * A passage as a whole is read with its labels (section path, manual title, file path): a passage of
 * the named product's manual is about that product even where its text does not repeat the name, so
 * the name tells the product's passages nothing apart, and one that happens to repeat it (a download
 * page, an overview) does not lead for it.
 */
function makeScorer(question: string, passages: Candidate[], extraTerms: string[]): Scorer {
  const alts = termAlternatives(question);
  for (const t of extraTerms) if (!alts.has(t)) alts.set(t, []);
  const sets = passages.map(passageTokens);
  const has = (t: string, set: Set<string>) =>
    set.has(t) || (alts.get(t) ?? []).some((g) => g.length > 0 && g.every((x) => set.has(x)));
  const weights = new Map<string, number>();
  for (const t of alts.keys()) {
    const df = sets.filter((s) => has(t, s)).length;
    const base = Math.log(1 + (sets.length + 1) / (df + 0.5));
    weights.set(t, extraTerms.includes(t) && !question.toLowerCase().includes(t) ? base * 0.5 : base);
  }
  const groups = termGroups(question, [...alts.keys()]);
  const scoreSet = (set: Set<string>) => {
    let s = 0;
    for (const g of groups) s += Math.max(0, ...g.filter((t) => has(t, set)).map((t) => weights.get(t) ?? 0));
    return s;
  };
  return {
    score: (text) => scoreSet(new Set(analyze(text))),
    words: (text) => {
      const set = new Set(analyze(text));
      return groups.filter((g) => g.some((t) => has(t, set))).length;
    },
    passage: (i) => scoreSet(sets[i] ?? new Set()),
  };
}

/** Units between two quoted ones of a passage that are quoted too (outside one paragraph), so it reads without holes. */
const MAX_GAP_UNITS = 4;
/** Units a lead-in brings at most (a list, a procedure, a table, a code block). */
const LIST_MAX = 12;
/** How far past its budget a lead-in with its list, or a step with its procedure, may take the answer. */
const GROUP_SLACK = 2;

/**
 * What units[at] introduces: after a lead-in ("…appears:", "run this:") the list, steps, table rows or
 * code block that follow; after the last sentence of a paragraph, a code block right below it.
 */
function introduced(units: Unit[], at: number): Unit[] {
  const u = units[at];
  if (!u) return [];
  const next = units[at + 1];
  const leads = (LEAD_IN.test(u.text) || LABEL_LINE.test(u.text)) && (u.kind === 'sentence' ? u.endsLine !== false : u.kind !== 'code');
  if (!leads && !(u.kind === 'sentence' && u.endsLine && next?.kind === 'code')) return [];
  const out: Unit[] = [];
  for (let i = at + 1; i < units.length && out.length < LIST_MAX; i++) {
    const v = units[i] as Unit;
    // A word that joins two alternatives ("an error like: <code> or <code>") is part of the list.
    const joins = leads && out.length > 0 && isJoiner(v) && LIST_KINDS.has(units[i + 1]?.kind as Unit['kind']);
    if (!LIST_KINDS.has(v.kind) && !joins) break;
    out.push(v);
    // A code block introduced by a plain sentence is the whole of what it introduces.
    if (!leads) break;
  }
  return out;
}

/** The start of the list / procedure / code run units[at] is in, and its lead-in when it has one. */
function runWithLeadIn(units: Unit[], at: number, kinds: Set<Unit['kind']>): Unit[] {
  let a = at;
  let b = at;
  while (a > 0 && kinds.has((units[a - 1] as Unit).kind)) a--;
  while (b + 1 < units.length && kinds.has((units[b + 1] as Unit).kind)) b++;
  const lead = a > 0 ? introduced(units, a - 1) : [];
  const from = lead.length > 0 ? a - 1 : a;
  const to = Math.min(b, from + LIST_MAX);
  return units.slice(from, to + 1);
}

/**
 * A sentence that goes on with the steps before it: a step written as prose ("Then save the
 * configuration:", "Finally, …", "然后…"), or a caution about doing them ("Do not switch the supply off
 * while the LED blinks.", "Never …", "切勿…"): it belongs to the procedure as much as its last step.
 */
const THEN = /^(?:then|finally|next|afterwards|after that|now|do not|don['’]t|never)\b|^(?:然后|最后|之后|接着|切勿|不要|禁止)/i;

/**
 * What a procedure goes on with after its numbered steps: the sentence right after the last one that
 * starts with "then", "finally", "do not" and the like (a second step written as prose: "Then save the
 * configuration"; the caution that goes with the steps), with what it introduces (its command).
 */
function thenStep(units: Unit[], run: Unit[]): Unit[] {
  const at = units.indexOf(run[run.length - 1] as Unit) + 1;
  const next = units[at];
  if (!next || next.kind !== 'sentence' || !THEN.test(next.text)) return [];
  return [next, ...introduced(units, at)];
}

/** A unit with what completes it, the unit itself first. */
function withCompletion(units: Unit[], u: Unit, isTop: boolean): Unit[] {
  const at = units.indexOf(u);
  const group = [u];
  const add = (v: Unit | undefined) => {
    if (v && !group.includes(v)) group.push(v);
  };
  const follow = introduced(units, at);
  if (follow.length > 0) {
    follow.forEach(add);
    if (follow.some((v) => v.kind === 'step')) thenStep(units, follow).forEach(add);
  } else if (u.kind === 'step') {
    // A step brings its numbered run (and the line that introduces it).
    const run = runWithLeadIn(units, at, STEP_KINDS);
    run.forEach(add);
    thenStep(units, run).forEach(add);
  } else if (u.kind === 'item') {
    // A list item is never cut from the sentence that introduces it.
    const run = runWithLeadIn(units, at, ITEM_KINDS);
    if (run[0] && run[0].kind !== 'item') add(run[0]);
  } else if (u.kind === 'code') {
    // A code block is never cut from the sentence that introduces it, nor from the alternatives
    // introduced with it ("an error like: <code> or <code>").
    let a = at;
    while (a > 0 && (LIST_KINDS.has((units[a - 1] as Unit).kind) || isJoiner(units[a - 1] as Unit))) a--;
    const lead = a > 0 ? introduced(units, a - 1) : [];
    if (lead.includes(u)) {
      add(units[a - 1]);
      lead.forEach(add);
    } else {
      const run = runWithLeadIn(units, at, LIST_KINDS);
      if (run[0] && !LIST_KINDS.has(run[0].kind)) add(run[0]);
    }
  } else if (u.kind === 'heading') {
    // A heading inside the passage that matches the question: its subsection is the answer.
    for (let i = at + 1; i < units.length && i - at <= LIST_MAX && (units[i] as Unit).kind !== 'heading'; i++) add(units[i]);
  } else if (u.kind === 'sentence' && isTop) {
    // The best sentence brings the sentences that follow it (the caveat, what to do next), and the
    // list a lead-in among them introduces ("If seen, make sure to:").
    for (let i = at + 1; i < units.length && i - at <= 5 && (units[i] as Unit).kind === 'sentence'; i++) {
      add(units[i]);
      const more = introduced(units, i);
      if (more.length > 0) {
        more.forEach(add);
        break;
      }
    }
  } else if (u.kind === 'sentence' && units[at + 1]?.kind === 'sentence' && (u.endsLine === false || introduced(units, at + 1).length === 0)) {
    // Another matching sentence brings the next one, but not a lead-in past its paragraph's end: that
    // starts something else ("There are a few reasons for this feature:" and its list), which would
    // take the budget before the lines that carry the question; a later pass adds it if room is left.
    add(units[at + 1]);
    introduced(units, at + 1).forEach(add);
  }
  return group;
}

/**
 * Picks the parts of the candidates that answer the question, in citation order (passage rank)
 * and manual order inside each passage.
 */
export function extractParts(question: string, candidates: Candidate[], opts: ExtractOptions = {}): ExtractedPart[] {
  const maxPassages = opts.maxPassages ?? 3;
  const maxUnits = opts.maxUnits ?? 8;
  const maxChars = opts.maxChars ?? 1400;
  const keepShare = opts.keepShare ?? 0.5;
  const pool = candidates.slice(0, maxPassages);
  if (pool.length === 0) return [];
  const scorer = makeScorer(question, pool, opts.extraTerms ?? []);
  const perPassage = pool.map((c, i) => passageUnits(c, i));
  let best = 0;
  for (const units of perPassage) {
    for (const u of units) {
      u.score = scorer.score(u.text);
      // A rank bonus: the same words in a better-ranked passage weigh a little more.
      u.score *= 1 + 0.15 / (u.passage + 1);
      if (u.kind === 'heading') u.score *= 0.9;
      best = Math.max(best, u.score);
    }
  }
  if (best <= 0) return [];
  // A step or item cut off where the passage ends ("2. Send the motor a new position setpoint with")
  // is never quoted: it reads as an instruction and says nothing whole.
  for (const us of perPassage) {
    const last = us[us.length - 1];
    if (last && (last.kind === 'step' || last.kind === 'item') && CUT_OFF.test(last.text)) us.pop();
  }
  const chosen = new Set<Unit>();
  let chars = 0;
  // A lead-in and its list, a step and its procedure come whole or not at all: the group may run past
  // the budget (up to GROUP_SLACK times it), never stop on "…appears:" without the steps that follow.
  const fits = (group: Unit[], slack: number): boolean => {
    const fresh = group.filter((u) => !chosen.has(u));
    const size = fresh.reduce((n, u) => n + u.text.length, 0);
    if (chosen.size === 0) return true;
    return chosen.size + fresh.length <= maxUnits * slack + (slack > 1 ? LIST_MAX : 0) && chars + size <= maxChars * slack;
  };
  const addGroup = (group: Unit[]): boolean => {
    const head = group[0] as Unit;
    if (chosen.has(head) && group.every((u) => chosen.has(u))) return true;
    if (!fits([head], 1)) return false;
    if (!fits(group, group.length > 1 ? GROUP_SLACK : 1)) return false;
    for (const u of group) {
      if (chosen.has(u)) continue;
      chosen.add(u);
      chars += u.text.length;
    }
    return true;
  };
  const byScore = (a: Unit, b: Unit) => b.score - a.score || a.passage - b.passage || a.order - b.order;
  const passageBest = perPassage.map((units) => Math.max(0, ...units.map((u) => u.score)));
  // The primary passage covers the most of the question as a whole, with a prior for retrieval's rank
  // (the second passage must cover 1.25x what the first does to lead, the third 1.4x): word overlap of
  // one unit alone let a passage that repeats one question word win over the section that answers it.
  // A passage that is only code (a configuration file, an example program) repeats the question's
  // identifiers without saying what they do: a question that does not ask how to do something is
  // answered by the prose that explains them, so such a passage leads only at twice the coverage.
  const codeOnly = (i: number) => (perPassage[i] as Unit[]).every((u) => u.kind === 'code' || u.kind === 'heading');
  const asksHow = HOW_TO.test(question);
  const whole = pool.map((_, i) => scorer.passage(i) * (1 + RANK_PRIOR / (i + 1)) * (codeOnly(i) && !asksHow ? CODE_ONLY_PRIOR : 1));
  const primary = whole.indexOf(Math.max(...whole));
  const units = perPassage[primary] as Unit[];
  const primaryBest = passageBest[primary] as number;
  let top: Unit | undefined;
  if (units[0]?.kind === 'heading' && units[0].score >= primaryBest) {
    // The question matches the section's heading (FAQ style, "How to …"): the section's text is the answer.
    for (let i = 0; i < units.length; i++) {
      const group = [units[i] as Unit, ...introduced(units, i)];
      if (!addGroup(group)) break;
      i += group.length - 1;
    }
  } else {
    // Its units that carry the question's words, each with what completes it (a procedure is not
    // useful cut short; the remedy or the caveat often follows the sentence that matches). After its
    // best one, a line of another passage that carries more of the question's words than any line of
    // this one competes with them for the budget: the primary passage covers the most of the question
    // as a whole (an overview, an API listing), the line that says it together may be elsewhere ("For
    // a pure torque control application, …" under its own heading).
    top = units.reduce((a, b) => (b.score > a.score ? b : a));
    const most = Math.max(0, ...units.map((u) => scorer.words(u.text)));
    const better = perPassage.flatMap((us, i) => (i === primary ? [] : us.filter((u) => u.kind !== 'heading' && scorer.words(u.text) > most)));
    const mine = units.filter((u) => u !== top && u.score >= primaryBest * keepShare && u.score > 0);
    for (const u of [top, ...[...mine, ...better].sort(byScore)]) {
      if (u.score <= 0 || !addGroup(withCompletion(perPassage[u.passage] as Unit[], u, u === top))) break;
    }
  }
  // An example alone is no answer: when all the primary passage gives is its code (with a label such
  // as "Python:"), the prose that explains it comes first (what to do, the code then shows how).
  explainCode(units, chosen, addGroup);
  // A how-to question is answered by what to type or set: the primary passage's first code block (the
  // command, the configuration line) comes with its lead-in even when its words are not the question's.
  // When the primary passage has none (an overview: "calibration is required when…"), the first code
  // block of the next passage from the same documentation set does, when its lead-in carries a
  // word of the question (the command is often a section of its own); never another product's.
  if (HOW_TO.test(question)) {
    const docSet = (p: Candidate) => sourceOf(p.file ?? '');
    const own = docSet(pool[primary] as Candidate);
    const group = (u: Unit) => withCompletion(perPassage[u.passage] as Unit[], u, false);
    const code =
      units.find((u) => u.kind === 'code') ??
      perPassage
        .flatMap((us, i) => (i === primary || docSet(pool[i] as Candidate) !== own ? [] : us))
        .find((u) => u.kind === 'code' && group(u).some((g) => g.kind !== 'code' && g.score > 0));
    if (code && !chosen.has(code)) addGroup(group(code));
  }
  // A how-to question is answered by the procedure: when the primary passage has numbered steps and
  // none is quoted yet, its best step comes with its whole run (lead-in, the step written as prose
  // after it), though the explanation above the steps carries more of the question's words ("Calibration
  // and saving are two separate steps. A calibration that is not saved is lost at the next power cycle.").
  if (asksHow && ![...chosen].some((u) => u.passage === primary && u.kind === 'step')) {
    const steps = units.filter((u) => u.kind === 'step');
    if (steps.length > 0) addGroup(withCompletion(units, steps.reduce((a, b) => (b.score > a.score ? b : a)), false));
  }
  // A question that asks what to do is answered by the procedure: the primary passage's list or steps
  // that a lead-in or a label introduces ("**Troubleshooting Procedure**", "To recover:") come whole,
  // even when the question's words are in the description above them and not in the steps.
  if (WHAT_TO_DO.test(question) && ![...chosen].some((u) => u.passage === primary && (u.kind === 'step' || u.kind === 'item'))) {
    const at = units.findIndex((u, i) => u.kind === 'sentence' && introduced(units, i).some((v) => v.kind === 'step' || v.kind === 'item'));
    if (at >= 0) addGroup([units[at] as Unit, ...introduced(units, at)]);
  }
  // Other passages about the question (their best is close to the best of all) add their units that
  // carry the question's words (a code table row that names the symptom, the setting to change), each
  // with what completes it, as in the primary passage.
  // A passage of the primary passage's own section (a subsection, a sibling under the same heading, the
  // same section's next chunk) continues it: an introduction that restates the problem is followed by
  // the cause and the fix, which need not repeat the question's words as often.
  const sameDoc = (i: number) => continues(pool[primary] as Candidate, pool[i] as Candidate);
  const others = perPassage.flatMap((us, i) => (i === primary || ((passageBest[i] as number) < best * RELEVANT_SHARE && !sameDoc(i)) ? [] : us)).sort(byScore);
  for (const u of others) {
    if (u.score <= 0 || u.score < (sameDoc(u.passage) ? (passageBest[u.passage] as number) : best) * keepShare) continue;
    if (u.kind === 'heading') continue;
    if (!addGroup(withCompletion(perPassage[u.passage] as Unit[], u, false))) break;
  }
  // Each passage's best quoted sentence is read from its paragraph's start where the budget leaves
  // room after every passage has had its say (the primary passage first): the test, the condition or
  // the cause its words conclude ("test each axis … You'll know you've hit it when the steppers stall").
  const rank0 = (i: number) => (i === primary ? -1 : i);
  for (const i of perPassage.map((_, i) => i).sort((x, y) => rank0(x) - rank0(y))) {
    const us = perPassage[i] as Unit[];
    const lead = i === primary && top ? top : us.filter((u) => chosen.has(u)).sort(byScore)[0];
    if (!lead || lead.kind !== 'sentence' || !chosen.has(lead)) continue;
    const at = us.indexOf(lead);
    const back: Unit[] = [];
    let k = at - 1;
    for (; k >= 0 && isMidParagraph(us[k] as Unit); k--) back.unshift(us[k] as Unit);
    const fresh = back.filter((u) => !chosen.has(u));
    const size = fresh.reduce((n, u) => n + u.text.length, 0);
    // A paragraph longer than that is text without its line breaks (a PDF page), not one paragraph.
    if (fresh.length > 0 && back.length <= PARAGRAPH_BACK && chars + size <= maxChars * GROUP_SLACK) {
      for (const u of fresh) chosen.add(u);
      chars += size;
    }
  }
  // A passage is quoted without holes: what lies between two chosen units comes too when it is the
  // rest of their paragraph, or a few units under the same heading (the reason or the instruction often
  // sits between the two that share the question's words), within the budget's slack.
  for (const us of perPassage) {
    const picked = us.filter((u) => chosen.has(u));
    for (let j = 1; j < picked.length; j++) {
      const a = us.indexOf(picked[j - 1] as Unit);
      const b = us.indexOf(picked[j] as Unit);
      const gap = us.slice(a + 1, b);
      const sameParagraph = (us[a] as Unit).kind === 'sentence' && (us[a] as Unit).endsLine === false && gap.every((u) => u.kind === 'sentence' && u.endsLine === false);
      const shortRun = gap.length <= MAX_GAP_UNITS && !gap.some((u) => u.kind === 'heading');
      if (gap.length === 0 || !(sameParagraph || shortRun)) continue;
      const size = gap.reduce((n, u) => n + u.text.length, 0);
      if (chars + size > maxChars * GROUP_SLACK) continue;
      for (const u of gap) chosen.add(u);
      chars += size;
    }
  }
  // A quoted sentence followed by a lead-in brings the example or the steps it introduces ("For
  // example, to allow no more than 50 W:" and its command), within the budget's slack.
  for (const us of perPassage) {
    for (let j = 0; j + 1 < us.length; j++) {
      const u = us[j] as Unit;
      const v = us[j + 1] as Unit;
      if (u.kind !== 'sentence' || !chosen.has(u) || chosen.has(v) || v.kind !== 'sentence') continue;
      const follow = introduced(us, j + 1);
      if (follow.length === 0) continue;
      const group = [v, ...follow].filter((x) => !chosen.has(x));
      const size = group.reduce((n, x) => n + x.text.length, 0);
      if (chars + size <= maxChars * GROUP_SLACK) {
        for (const x of group) chosen.add(x);
        chars += size;
      }
    }
  }
  // A list is quoted from its start, not from its best item: the items before a chosen one (the
  // causes listed first are often the likeliest) come too, within the budget's slack.
  for (const us of perPassage) {
    for (let j = us.length - 1; j >= 0; j--) {
      const u = us[j] as Unit;
      if (u.kind !== 'item' || !chosen.has(u)) continue;
      let a = j;
      while (a > 0 && (us[a - 1] as Unit).kind === 'item') a--;
      const before = us.slice(a, j).filter((v) => !chosen.has(v));
      const size = before.reduce((n, v) => n + v.text.length, 0);
      if (before.length > 0 && chars + size <= maxChars * GROUP_SLACK) {
        for (const v of before) chosen.add(v);
        chars += size;
      }
      j = a;
    }
  }
  // Never end a part on a lead-in without what it introduces (a budget stop can leave one).
  for (const u of [...chosen]) {
    const us = perPassage[u.passage] as Unit[];
    const follow = introduced(us, us.indexOf(u));
    if (follow.length > 0 && !follow.some((f) => chosen.has(f)) && chosen.size > 1) chosen.delete(u);
  }
  // The primary passage's lines come under their heading when it names what they leave unnamed: a
  // setting's section says "these values" and "write these settings" where only its heading names
  // them ("$110, $111 and $112 – Max rate").
  const headingAbove = headingOf(perPassage[primary] as Unit[], chosen);
  if (headingAbove && namesMore(headingAbove.text, (perPassage[primary] as Unit[]).filter((u) => chosen.has(u)))) chosen.add(headingAbove);
  // The primary passage first (it gets [1]), then the others in rank order; manual order inside each.
  const rank = (u: Unit) => (u.passage === primary ? -1 : u.passage);
  return [...chosen]
    .sort((a, b) => rank(a) - rank(b) || a.order - b.order)
    .map((u) => ({ text: u.text, passage: u.passage }));
}

/** A name in a heading: a word with a digit or a sign of a setting or code ("$110", "max_rate", "servo.kp", "P0300"). */
const NAME_TOKEN = /^(?=.*[\d$_]|.*\w\.\w)[\p{L}\p{N}$_.:-]+$/u;

/** Whether a heading names a setting, code or command that none of the quoted lines names. */
function namesMore(heading: string, quoted: Unit[]): boolean {
  const text = quoted.map((u) => u.text).join('\n');
  return heading
    .replace(/^\s*(?:#{1,6}|=+)\s*/, '')
    .split(/[\s,;()[\]–—/]+/)
    .map((w) => w.replace(/[.:-]+$/, ''))
    .some((w) => NAME_TOKEN.test(w) && !text.includes(w));
}

/** The heading the first chosen unit of a passage sits under, when none of its chosen units is a heading at or above it. */
function headingOf(units: Unit[], chosen: Set<Unit>): Unit | undefined {
  const first = units.findIndex((u) => chosen.has(u));
  if (first < 0 || units.slice(0, first + 1).some((u) => u.kind === 'heading' && chosen.has(u))) return undefined;
  for (let k = first - 1; k >= 0; k--) if ((units[k] as Unit).kind === 'heading') return units[k];
  return undefined;
}

/** Whether passage b is of a's own section: the same file, and b's section is a's, under it, or beside it under a heading below the title. */
function continues(a: Candidate, b: Candidate): boolean {
  if (!a.file || a.file !== b.file || a.section === undefined || b.section === undefined) return false;
  const pa = a.section.split(' > ');
  const pb = b.section.split(' > ');
  if (pb.length >= pa.length && pa.every((s, i) => pb[i] === s)) return true;
  return pa.length >= 3 && pb.length === pa.length && pa.slice(0, -1).every((s, i) => pb[i] === s);
}

/** A lead-in that only names what follows ("Python:", "Example:", "C++ :"): a label, not an explanation. */
const LABEL_LEAD = /^[^\s.!?]{1,20}(?:\s[^\s.!?]{1,20})?\s*[:：]$/u;
/** Sentences of explanation brought to a code-only answer at most. */
const EXPLAIN_MAX = 4;

/**
 * When every unit chosen from a passage is code or a label leading to it, adds the passage's prose
 * sentences before that code (up to EXPLAIN_MAX, as one group): the manual's explanation of why and
 * what to do, which the question's words may not share with the example (a question about a program
 * that sleeps matches the `sleep()` call of the example; the answer is the sentence before it).
 */
function explainCode(units: Unit[], chosen: Set<Unit>, addGroup: (group: Unit[]) => boolean): void {
  const picked = units.filter((u) => chosen.has(u));
  const isLabel = (u: Unit) => u.kind === 'sentence' && LABEL_LEAD.test(u.text);
  if (picked.length === 0 || !picked.some((u) => u.kind === 'code') || !picked.every((u) => u.kind === 'code' || isLabel(u))) return;
  const firstCode = units.indexOf(picked.find((u) => u.kind === 'code') as Unit);
  const prose = units.slice(0, firstCode).filter((u) => u.kind === 'sentence' && !isLabel(u));
  if (prose.length > 0) addGroup(prose.slice(0, EXPLAIN_MAX));
}

/**
 * Joins parts into answer text, citing each with its passage's citation number. A code block stays
 * a fenced block (a mark after its closing fence would break it): its citation goes on the line
 * before, unless the line before is already cited to the same passage (its lead-in).
 */
export function renderParts(parts: ExtractedPart[], citationOf: (passage: number) => number): string {
  // Manual text next to our [n]: a mark the manual wrote itself ("[7]") must not read as a citation.
  const lines: string[] = [];
  parts.forEach((p, i) => {
    const n = citationOf(p.passage);
    if (FENCE.test(p.text)) {
      if (parts[i - 1]?.passage !== p.passage) lines.push(`[${n}]`);
      lines.push(answerText(p.text));
    } else {
      lines.push(`${answerText(p.text)} [${n}]`);
    }
  });
  return lines.join('\n');
}

/** A fault-code record as an answer: the code and title, then meaning, cause and remedy as written. */
export function codeAnswerLines(m: CodeMatch): string[] {
  // A code reached through a vendor prefix scheme shows as typed, then as the manual writes it: "31110 (XX110)".
  const typed =
    spokenCode(m) ??
    (m.key.toUpperCase() !== m.code.toUpperCase() && /^[0-9a-z]+$/i.test(m.key) && !/^0x/.test(m.key) ? `${m.key.toUpperCase()} (${m.code})` : m.code);
  // A record whose only text is what to do (`MotorFailed: {doc: Check motor.error…}`) has that as its
  // title too: it is said once, as the remedy.
  const titleIsRemedy = m.title !== '' && m.remedy.startsWith(m.title) && !m.description && !m.cause;
  const head = m.title && m.title !== m.code && !titleIsRemedy ? `${typed}: ${m.title}` : typed;
  // A typed value read as flags says so first ("0x41 = INVALID_STATE (bit 0) + DRUM_OVERHEAT (bit 6)").
  const lines = m.decoded ? [m.decoded, head] : [head];
  // A description whose first sentence or line is the title (a table's meaning column, then its note
  // column; a YAML entry's `brief:`, then its `doc:`) adds the rest.
  const detail = codeDetail(m);
  if (detail) lines.push(detail);
  if (m.cause) lines.push(`Cause: ${m.cause}`);
  if (m.remedy) lines.push(`Remedy: ${m.remedy}`);
  if (m.scope.length > 0) lines.push(`Applies to: ${m.scope.join(', ')}`);
  return lines;
}

/** Builds a citation from a passage or code record. */
export function toCitation(n: number, h: Pick<SearchHit, 'file' | 'page' | 'section' | 'text' | 'manual' | 'chunkId' | 'kind' | 'pack'>): Citation {
  return { n, file: h.file, page: h.page, section: h.section, text: h.text, manual: h.manual, chunkId: h.chunkId, kind: h.kind, ...(h.pack ? { pack: h.pack } : {}) };
}
