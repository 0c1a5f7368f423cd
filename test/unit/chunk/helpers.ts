import type { Block, ParsedDocument } from '../../../native/contract/document.js';

/** A parsed document made of the given blocks. */
export function doc(blocks: Block[]): ParsedDocument {
  return { format: 'markdown', meta: {}, blocks, warnings: [] };
}

export function heading(text: string, parents: string[], page: number | null = null): Block {
  return { kind: 'heading', text, headingPath: parents, page, level: parents.length + 1 };
}

export function para(text: string, path: string[], page: number | null = null): Block {
  return { kind: 'paragraph', text, headingPath: path, page };
}

export function step(n: number, text: string, path: string[], page: number | null = null): Block {
  return { kind: 'step', stepNumber: n, text, headingPath: path, page };
}

export function warning(text: string, path: string[], kind: Block['admonition'] = 'WARNING'): Block {
  return { kind: 'admonition', admonition: kind, text, headingPath: path, page: null };
}

export function code(text: string, path: string[]): Block {
  return { kind: 'code', text, headingPath: path, page: null };
}

export function row(columns: string[], cells: string[], path: string[], page: number | null = null): Block {
  return { kind: 'table-row', text: cells.join(' '), columns, cells, headingPath: path, page };
}

/** n distinct English sentences of about `words` words each. */
export function englishSentences(n: number, words = 14): string[] {
  return Array.from({ length: n }, (_, i) => {
    const filler = Array.from({ length: words - 4 }, (_, k) => `word${(i * 7 + k) % 23}`).join(' ');
    return `Sentence ${i} says ${filler} here.`;
  });
}

/** n distinct Chinese sentences ending in the four CJK terminators in turn. */
export function chineseSentences(n: number, chars = 30): string[] {
  const ends = ['。', '！', '？', '；'];
  const pool = '检查主轴电机温度传感器并清洁冷却风扇滤网确认电源线连接牢固后重新启动设备';
  return Array.from({ length: n }, (_, i) => {
    let body = `第${i}句`;
    for (let k = 0; body.length < chars; k++) body += pool[(i * 5 + k) % pool.length];
    return body + ends[i % ends.length];
  });
}
