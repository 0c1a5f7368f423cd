/**
 * Messages the manuals show as a machine or a tool prints them, so that a question that types one
 * without quotes ("teach stroke lost when running the press tool", "the panel says cannot read recipe
 * file") is searched for the passages that show it, as a quoted one is
 * (query-plan.ts quotedMessages). Pure: built from passage texts, matched without a store.
 *
 * A shown message is a fenced block of one short line (`TEACH stroke lost`, `[LOG:WARN: Cannot read
 * recipe file: press.rcp]`): how manuals display what the screen or the console says. A
 * question holds one when it writes the whole message, or three or more of its words in a row.
 */

/** Words a message may have; longer lines are listings, not messages. */
const MIN_WORDS = 2;
const MAX_WORDS = 12;
const MAX_CHARS = 120;
/** A run of a longer message that a question must write to hold it. */
const MIN_RUN = 3;
/** At most this many messages are indexed (a library of generated listings must not grow it unbounded). */
const MAX_MESSAGES = 20_000;

const WORD = /[\p{L}\p{N}]+/gu;
const CODE_LIKE = /[=<>{};$|`\\]|\s--?[a-z]|[a-z]\(|\/\w+\/|^(?:sudo|pip3?|python3?|make|cd|git|ls|cat|echo|npm|apt(?:-get)?)\s/i;
/** Words that make no run specific on their own ("is not", "of the"). */
const FILLER = new Set(
  'a an the of to in on at for and or is are was be not no it this that with from by as if then than can cannot'.split(' '),
);

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** The one-line fenced blocks of a text (fences paired in order, so the prose between two blocks is never one). */
function oneLineBlocks(text: string): string[] {
  const out: string[] = [];
  let inside: string[] | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('```')) {
      if (inside === null) inside = [];
      else {
        const body = inside.filter((l) => l !== '');
        if (body.length === 1) out.push(body[0] as string);
        inside = null;
      }
    } else if (inside !== null) inside.push(line);
  }
  return out;
}

/** The one-line messages a passage shows in fenced blocks, as written. */
export function shownMessages(text: string): string[] {
  if (!text.includes('```')) return [];
  const out: string[] = [];
  for (const line of oneLineBlocks(text)) {
    const words = wordsOf(line);
    if (line.length > MAX_CHARS || words.length < MIN_WORDS || words.length > MAX_WORDS) continue;
    // A message has words: at least two of letters, not only numbers, hex and punctuation.
    if (words.filter((w) => /\p{L}{2}/u.test(w)).length < 2) continue;
    // A formula, a command or a line of code is no message: `rotation_distance = <full_steps> * …`,
    // `make flash FLASH_DEVICE=/dev/ttyACM0`, `press_tool --teach`, `print(x);`; nor is one
    // identifier (`SAVE_CONFIG`), nor a lead-in a passage cut inside a block left between fences
    // ("要通过Optiboot bootloader 刷写一个应用程序，请使用以下方法：").
    if (CODE_LIKE.test(line) || !/\s/.test(line) || /[:：]$/.test(line)) continue;
    out.push(line);
  }
  return out;
}

export interface MessageIndex {
  /** Each message's words, by every word it holds: word → [message index, position]. */
  at: Map<string, [number, number][]>;
  messages: { text: string; words: string[] }[];
}

export function buildMessageIndex(texts: Iterable<string>): MessageIndex {
  const index: MessageIndex = { at: new Map(), messages: [] };
  const seen = new Set<string>();
  for (const text of texts) {
    for (const msg of shownMessages(text)) {
      const words = wordsOf(msg);
      const key = words.join(' ');
      if (seen.has(key) || index.messages.length >= MAX_MESSAGES) continue;
      seen.add(key);
      const n = index.messages.push({ text: msg, words }) - 1;
      words.forEach((w, pos) => {
        let list = index.at.get(w);
        if (!list) index.at.set(w, (list = []));
        list.push([n, pos]);
      });
    }
  }
  return index;
}

/**
 * The shown messages a question writes (whole, or a run of at least MIN_RUN of its words with two
 * that are not filler), as the manuals write them, longest first, each once.
 */
export function messagesIn(index: MessageIndex, question: string): string[] {
  const q = wordsOf(question);
  const found = new Map<number, number>();
  for (let i = 0; i < q.length; i++) {
    for (const [n, pos] of index.at.get(q[i] as string) ?? []) {
      const words = (index.messages[n] as { words: string[] }).words;
      let len = 0;
      while (i + len < q.length && pos + len < words.length && q[i + len] === words[pos + len]) len++;
      const run = q.slice(i, i + len);
      const whole = len === words.length;
      if (!whole && len < MIN_RUN) continue;
      if (run.filter((w) => !FILLER.has(w) && w.length >= 2).length < 2) continue;
      found.set(n, Math.max(found.get(n) ?? 0, len));
    }
  }
  return [...found]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .map(([n]) => (index.messages[n] as { text: string }).text);
}
