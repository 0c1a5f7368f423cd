/**
 * Manual text is data, never instructions. Before a passage, a manual title or a question goes into a
 * model prompt (or manual text into an answer that cites with [n]), this file takes from it what
 * could be read as structure instead of content:
 * - chat-template control tokens (ChatML <|im_start|>, Llama 3 <|eot_id|>, Llama 2 [INST] <<SYS>>,
 *   Gemma <start_of_turn>, Mistral [SYSTEM_PROMPT], </s>, <think>…) are shown with look-alike
 *   brackets (‹|im_start|›), so no tokenizer or template reads them as a turn boundary;
 * - citation-like marks written in the manual ("[7]", "[1, 2]", "[3][12]") get full-width brackets
 *   (［7］) in what a model reads, so neither the model, the citation check nor the answer view takes
 *   them for one of our citations; in an answer's quoted text they keep the manual's brackets, with
 *   an invisible word joiner after "[" ("[\u20607]"), so they read as written while no citation
 *   pattern (the check's, the answer view's: `[` then a digit) matches them;
 * - invisible format characters (zero-width, bidi overrides) are dropped;
 * - fenceSource() fences a passage between lines of three double quotes, with any run of three
 *   quotes inside it broken, so no line of a manual can close the fence and pass for a source
 *   header, the question or an instruction. (quoteSource(), every line prefixed with "> ", is the
 *   older fence: the 0.5B answer model read those lines as a format to continue, see prompt.ts.)
 * Pure; the words themselves are kept, so the technician still sees what the manual says.
 */

const INVISIBLE_G = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** `<|name|>` special tokens (ChatML, Llama 3, Phi, GPT-OSS…), any case, spaces allowed inside. */
const PIPE_TOKEN = /<\s*\|([^<>|\n]{0,40})\|\s*>/g;
/** Bracketed and angled control words of the other common templates. */
const NAMED_TOKEN =
  /\[(\/?)\s*(INST|SYS|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS|TOOL_CONTENT)\s*\]|<(\/?)(s|unk|pad|bos|eos|start_of_turn|end_of_turn|think|tool_call|tool_response)>|<<\s*(\/?)\s*SYS\s*>>/gi;
/** One or more bracketed citation numbers as the answer format writes them ("[1]", "[2, 3]", "[1; 4]"). */
const CITATION_MARK = /\[\s*(\d{1,4}(?:\s*[,;–-]\s*\d{1,4})*)\s*\]/g;

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE_G, '');
}

/** Chat-template control tokens shown with look-alike brackets (‹ ›), words kept. */
export function neutraliseControlTokens(text: string): string {
  return text
    .replace(PIPE_TOKEN, (_m, name: string) => `‹|${name}|›`)
    .replace(NAMED_TOKEN, (_m, s1: string | undefined, w1: string | undefined, s2: string | undefined, w2: string | undefined, s3: string | undefined) => {
      if (w1 !== undefined) return `‹${s1 ?? ''}${w1}›`;
      if (w2 !== undefined) return `‹${s2 ?? ''}${w2}›`;
      return `‹‹${s3 ?? ''}SYS››`;
    });
}

/** Citation-like marks written in a manual, with full-width brackets: "[7]" → "［7］". */
export function neutraliseCitationMarks(text: string): string {
  return text.replace(CITATION_MARK, (_m, list: string) => `［${list}］`);
}

/** Put after the "[" of a manual's own citation-like mark quoted in an answer: invisible, and no digit follows "[". */
export const QUOTED_MARK_JOINER = '\u2060';

/** Citation-like marks of a manual as written, each made unreadable as a citation: "[7]" → "[\u20607]". */
export function quoteCitationMarks(text: string): string {
  return text.replace(CITATION_MARK, (m) => `[${QUOTED_MARK_JOINER}${m.slice(1)}`);
}

/** Manual text quoted in an answer next to our own [n] marks: invisible characters taken out, citation-like marks kept as written but inert. */
export function answerText(text: string): string {
  return quoteCitationMarks(stripInvisible(text));
}

/** A one-line label from a manual (title, section) or a question, safe inside a prompt. */
export function promptLabel(text: string): string {
  return neutraliseCitationMarks(neutraliseControlTokens(stripInvisible(text))).replace(/\s*\n\s*/g, ' ').trim();
}

/** A passage fenced as a quotation for the prompt: cleaned as above, every line prefixed with "> ". */
export function quoteSource(text: string): string {
  const clean = neutraliseCitationMarks(neutraliseControlTokens(stripInvisible(text))).trim();
  return clean
    .split('\n')
    .map((line) => `> ${line}`.trimEnd())
    .join('\n');
}

/** The fence around a passage in the prompt (prompt.ts). */
export const SOURCE_FENCE = '"""';

/** A passage fenced for the prompt: cleaned as above, between two SOURCE_FENCE lines that no line of it can close. */
export function fenceSource(text: string): string {
  const clean = neutraliseCitationMarks(neutraliseControlTokens(stripInvisible(text)))
    .trim()
    .replace(/"{3,}/g, (q) => q.split('').join('\u200a'));
  return `${SOURCE_FENCE}\n${clean}\n${SOURCE_FENCE}`;
}
