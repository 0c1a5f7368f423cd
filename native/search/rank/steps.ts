/**
 * A ranking step: one named, pure re-ordering of a list, `(hits, context) → hits`. Each stage of a
 * retrieval runs its steps as one ordered list (channels/hybrid.ts: each channel's list, then the
 * fused list; rank/planned.ts: the retrieval's last steps); settings.ts (RANKING_STEPS) names every
 * step once, with its reason, and a step switched off there is skipped here.
 */
import { stepOn, type RankingStep, type RetrievalSettings } from '../settings.js';

export interface RankStep<H, C> {
  name: RankingStep;
  run: (hits: H[], context: C) => H[];
}

/** `hits` through `steps` in order, skipping the steps `settings` switches off. */
export function runSteps<H, C>(steps: readonly RankStep<H, C>[], hits: H[], context: C, settings?: Pick<RetrievalSettings, 'off'>): H[] {
  return steps.reduce((list, step) => (stepOn(settings, step.name) ? step.run(list, context) : list), hits);
}
