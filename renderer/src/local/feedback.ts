/** Useful / wrong feedback on answers, kept on this computer (localStorage). */
import { load, save } from './storage.js';

export interface Feedback {
  at: string;
  question: string;
  answer: string;
  mode: string;
  verdict: 'useful' | 'wrong';
  citations: { n: number; file: string; page: number | null }[];
}

const KEY = 'manualdesk.feedback.v1';

const isList = (v: unknown): v is Feedback[] => Array.isArray(v);

export function readFeedback(): Feedback[] {
  return load(KEY, [], isList);
}

export function addFeedback(f: Omit<Feedback, 'at'>): boolean {
  return save(KEY, [{ at: new Date().toISOString(), ...f }, ...readFeedback()].slice(0, 1000));
}
