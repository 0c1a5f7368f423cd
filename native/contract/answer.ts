/** Grounded answers (ask). Types only. */
import type { AdmonitionKind } from './document.js';
import type { HitKind, SearchFilters } from './api.js';

export type AnswerMode = 'code' | 'extractive' | 'generative';

export interface ConversationTurn {
  question: string;
  answer: string;
}

export interface AskRequest {
  question: string;
  /** Earlier turns of this conversation, oldest first (a follow-up is rewritten into a standalone query). */
  conversation?: ConversationTurn[];
  filters?: SearchFilters;
  /** Passages retrieved for the answer (default 8). */
  k?: number;
  /**
   * auto (default): generative when the installed local LLM passed the answer check (its result
   * beside the model file: scripts/eval-generation.ts --record), else extractive; generative: use the
   * installed LLM regardless (a rejected draft falls back to extractive, with fallbackReason);
   * code questions answer from the code record.
   */
  prefer?: 'auto' | 'extractive' | 'generative';
}

export interface Citation {
  n: number;
  file: string;
  page: number | null;
  section: string;
  /** The cited passage verbatim. */
  text: string;
  manual: string;
  chunkId: string;
  /** What is cited: a fault code's record, a table row or a passage (set where the hit was made). */
  kind: HitKind;
  /** Installed pack the cited passage comes from (absent: the site's own library); open it with SourceRequest.pack. */
  pack?: string;
}

export interface SafetyNotice {
  /**
   * Its level, for its colour (ANSI Z535 / ISO 3864: DANGER red, WARNING orange, CAUTION yellow,
   * NOTICE blue), or LOCKOUT for a lockout/tagout instruction.
   */
  kind: AdmonitionKind | 'NOTICE' | 'LOCKOUT';
  /** Verbatim text from the cited passage (or from the section a cited line refers to). */
  text: string;
  /** Citation number it comes from (for a pulled-in section: the citation whose line refers to it). */
  n: number;
  /**
   * Set when the notice comes from a section that a cited line refers to ("Lock out the machine
   * (section 1.1)", "see Safety"), or from a safety section beside a cited one under the same heading,
   * rather than from a cited passage: where it is, to open it, and the reference as written ("1.1",
   * "Safety"; beside: that section's heading).
   */
  source?: { file: string; page: number | null; section: string; manual: string; chunkId: string; ref: string; pack?: string };
}

export interface Refusal {
  /** Why the library does not answer it, for the technician. */
  reason: string;
  /** The query that was searched. */
  searched: string;
  /** The closest manuals/sections found, so the technician knows where to look. */
  closest: { manual: string; file: string; section: string; page: number | null; /** Installed pack it is in (absent: the site's own library). */ pack?: string }[];
}

export interface AskResponse {
  question: string;
  /** The query actually searched (follow-ups rewritten into standalone form). */
  standaloneQuery: string;
  answer: string;
  mode: AnswerMode;
  refused: boolean;
  refusal?: Refusal;
  /** DANGER / WARNING / CAUTION / lockout text from cited passages, verbatim, shown first. */
  safety: SafetyNotice[];
  citations: Citation[];
  /** Generative answers: citation numbers the model wrote that pointed nowhere (removed from the answer). */
  invalidCitations?: number[];
  /** Why a generative answer fell back to extractive, when it did. */
  fallbackReason?: string;
  /** Wall time of the whole answer, from question to the last word: what the technician waited. */
  ms: number;
  /** The language model's part of `ms` (loading, rewriting, generating), when one ran. */
  modelMs?: number;
}

export interface AskHooks {
  signal?: AbortSignal;
  /** Generated text as it streams (generative mode only). */
  onToken?: (text: string) => void;
  /**
   * The model's whole draft with the passages it was shown, before the answer check decides
   * (generative mode only). For measuring the check offline (scripts/eval-generation.ts --drafts);
   * in-process only, never sent over IPC or HTTP.
   */
  onDraft?: (draft: GeneratedDraft) => void;
}

/** A language model's draft as the answer check saw it. */
export interface GeneratedDraft {
  /** The question the prompt asked (after a follow-up was made standalone). */
  question: string;
  /** The text the model wrote, trimmed (stopped early when it looped or echoed the prompt). */
  text: string;
  /** The passages in the prompt, numbered as the model saw them; `text` is the whole passage (what a citation is checked against). */
  sources: { n: number; manual: string; section: string; page: number | null; text: string }[];
  /** Why generation was stopped before the model finished, when it was. */
  stopped?: string;
}

export type ModelRole = 'embed' | 'llm' | 'rerank';

export interface ModelStatus {
  id: string;
  role: ModelRole;
  installed: boolean;
  /** Folder or file where it was found. */
  path: string | null;
  /** sha256 checked against the manifest: true ok, false mismatch, null not checked / unknown. */
  verified: boolean | null;
  license: string;
  sizeBytes: number | null;
  inUse: boolean;
  /**
   * Language models only: the answer check recorded beside the model file (`manualdesk models
   * check`); null: not checked (or checked as another file). Only a passed model answers in `auto`.
   */
  answerCheck?: { passed: boolean; checkedAt: string; summary: string } | null;
}
