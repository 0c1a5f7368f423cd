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

  const sample = buf.length > SAMPLE_BYTES ? buf.subarray(0, SAMPLE_BYTES) : buf;
  const guess = chardet.detect(sample);
  let encoding = 'windows-1252';
  if (guess) {
    const mapped = GUESS_MAP[guess] ?? guess.toLowerCase();
    if (mapped !== 'utf-8' && mapped !== 'ascii' && iconv.encodingExists(mapped)) encoding = mapped;
  }
  return { text: iconv.decode(buf, encoding), encoding };
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
