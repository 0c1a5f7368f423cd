import { isUtf8 } from 'node:buffer';
import chardet from 'chardet';
import iconv from 'iconv-lite';

export interface DecodedText {
  text: string;
  /** Encoding used: "utf-8", "utf-16le", "utf-16be", "gb18030", "windows-1252", … */
  encoding: string;
}

/** Encodings whose guess is trusted as-is (after mapping to the superset iconv-lite decodes best). */
const GUESS_MAP: Record<string, string> = {
  'GB18030': 'gb18030',
  'GBK': 'gb18030',
  'GB2312': 'gb18030',
  'Big5': 'big5',
  'Shift_JIS': 'shift_jis',
  'EUC-JP': 'euc-jp',
  'EUC-KR': 'euc-kr',
  'ISO-8859-1': 'windows-1252',
  'UTF-16LE': 'utf-16le',
  'UTF-16BE': 'utf-16be',
};

const SAMPLE_BYTES = 64 * 1024;

/**
 * Decodes a text file's bytes. Order: byte-order mark (UTF-8, UTF-16LE/BE), valid UTF-8, UTF-16
 * without BOM (many zero bytes), then chardet's guess decoded with iconv-lite (GB18030 for
 * GBK/GB2312 Chinese). The BOM is removed from the text.
 */
export function decodeText(buf: Buffer): DecodedText {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
    return { text: buf.toString('utf8', 3), encoding: 'utf-8' };
  }
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
    return { text: buf.toString('utf16le', 2), encoding: 'utf-16le' };
  }
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    return { text: iconv.decode(buf.subarray(2), 'utf-16be'), encoding: 'utf-16be' };
  }
  const utf16 = sniffUtf16(buf);
  if (utf16 === 'utf-16le') return { text: buf.toString('utf16le'), encoding: utf16 };
  if (utf16 === 'utf-16be') return { text: iconv.decode(buf, 'utf-16be'), encoding: utf16 };
  if (isUtf8(buf)) return { text: buf.toString('utf8'), encoding: 'utf-8' };
  const mixed = decodeMostlyUtf8(buf);
  if (mixed) return mixed;

  const sample = buf.length > SAMPLE_BYTES ? buf.subarray(0, SAMPLE_BYTES) : buf;
  const guess = chardet.detect(sample);
  let encoding = 'windows-1252';
  if (guess) {
    const mapped = GUESS_MAP[guess] ?? guess.toLowerCase();
    if (mapped !== 'utf-8' && mapped !== 'ascii' && iconv.encodingExists(mapped)) encoding = mapped;
  }
  return { text: iconv.decode(buf, encoding), encoding };
}

/** Length of the valid UTF-8 sequence starting at `i` (1 for ASCII), 0 where none starts. */
function utf8Length(buf: Buffer, i: number): number {
  const b0 = buf[i] as number;
  if (b0 < 0x80) return 1;
  const n = b0 >= 0xc2 && b0 <= 0xdf ? 2 : b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > buf.length) return 0;
  for (let k = 1; k < n; k++) if (((buf[i + k] as number) & 0xc0) !== 0x80) return 0;
  const b1 = buf[i + 1] as number;
  if ((b0 === 0xe0 && b1 < 0xa0) || (b0 === 0xed && b1 >= 0xa0) || (b0 === 0xf0 && b1 < 0x90) || (b0 === 0xf4 && b1 >= 0x90)) return 0;
  return n;
}

/**
 * A file that is mostly UTF-8 with passages in a legacy encoding (text pasted together from two
 * sources, typically UTF-8 and GB18030): the UTF-8 parts are decoded as UTF-8, the others with the
 * encoding guessed from those parts alone. Decoding the whole file as one legacy encoding would turn
 * every UTF-8 character into mojibake. Null when the file is not like that.
 */
function decodeMostlyUtf8(buf: Buffer): DecodedText | null {
  const runs: { utf8: boolean; start: number; end: number }[] = [];
  let utf8Bytes = 0;
  let otherBytes = 0;
  let i = 0;
  const push = (utf8: boolean, start: number, end: number) => {
    const last = runs[runs.length - 1];
    if (last && last.utf8 === utf8 && last.end === start) last.end = end;
    else runs.push({ utf8, start, end });
  };
  while (i < buf.length) {
    const n = utf8Length(buf, i);
    if (n > 0) {
      if (n > 1) utf8Bytes += n;
      push(true, i, i + n);
      i += n;
      continue;
    }
    // A legacy run: up to the next ASCII byte, keeping double-byte pairs whole (a GB18030 trail byte may be ASCII).
    const start = i;
    while (i < buf.length && ((buf[i] as number) >= 0x80 || (i - start) % 2 === 1)) i++;
    otherBytes += i - start;
    push(false, start, i);
  }
  if (utf8Bytes === 0 || otherBytes === 0 || otherBytes > utf8Bytes) return null;
  const foreign = Buffer.concat(runs.filter((r) => !r.utf8).map((r) => buf.subarray(r.start, r.end)));
  const legacy = legacyEncodingOf(foreign, buf.toString('utf8'));
  const text = runs.map((r) => (r.utf8 ? buf.toString('utf8', r.start, r.end) : iconv.decode(buf.subarray(r.start, r.end), legacy))).join('');
  return { text, encoding: `utf-8+${legacy}` };
}

const HAN = /\p{Script=Han}/gu;
const HAS_HAN = /\p{Script=Han}/u;
const CJK_ENCODINGS = ['gb18030', 'big5', 'shift_jis', 'euc-kr'];

/**
 * The encoding of the legacy passages of a mixed file. Such passages are short, too short for
 * chardet alone: next to Chinese (Han) UTF-8 text, the CJK encoding that reads them as the most Han
 * characters without a decoding error wins; otherwise chardet's guess, else Windows-1252.
 */
function legacyEncodingOf(foreign: Buffer, utf8Text: string): string {
  if (HAS_HAN.test(utf8Text)) {
    let best = '';
    let bestHan = 0;
    for (const enc of CJK_ENCODINGS) {
      const text = iconv.decode(foreign, enc);
      const han = text.includes('\ufffd') ? 0 : (text.match(HAN)?.length ?? 0);
      if (han > bestHan) [best, bestHan] = [enc, han];
    }
    if (best) return best;
  }
  const guess = chardet.detect(foreign);
  const mapped = guess ? (GUESS_MAP[guess] ?? guess.toLowerCase()) : 'windows-1252';
  return mapped !== 'utf-8' && mapped !== 'ascii' && iconv.encodingExists(mapped) ? mapped : 'windows-1252';
}

/** UTF-16 without a BOM: most ASCII characters leave a zero byte at every other position. */
function sniffUtf16(buf: Buffer): 'utf-16le' | 'utf-16be' | null {
  const n = Math.min(buf.length, 4096) & ~1;
  if (n < 4) return null;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (buf[i] === 0) evenZero++;
    if (buf[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero > pairs * 0.4 && evenZero < pairs * 0.05) return 'utf-16le';
  if (evenZero > pairs * 0.4 && oddZero < pairs * 0.05) return 'utf-16be';
  return null;
}

/** True when decoded text still looks like binary data (NULs or many control characters). */
export function looksBinary(text: string): boolean {
  const n = Math.min(text.length, 8192);
  if (n === 0) return false;
  let bad = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return true;
    if ((c < 9 || (c > 13 && c < 32)) && c !== 27) bad++;
  }
  return bad / n > 0.05;
}
