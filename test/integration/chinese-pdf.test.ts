/**
 * A Chinese protocol manual as a PDF (a non-embedded CID font with a predefined CMap, as Chinese
 * vendors' manuals often are), through the real engine: its text decodes, its error-code table
 * becomes code records (negative codes included), a code typed in either language finds its row
 * and the answer cites it, and an English question that names a command the way the manual writes
 * it (EnableRobot) finds that command's section, and English trade words (collision detection, brake)
 * find the Chinese passages that say them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCjkPdf } from '../unit/parse/helpers.js';
import type { PdfLine } from '../unit/parse/helpers.js';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

function manual(): Buffer {
  const lines: PdfLine[] = [{ text: '1.3 错误码说明', x: 72, y: 740, size: 14 }];
  const rows = [
    ['错误码', '描述', '处理方法'],
    ['0', '无错误', '命令下发成功'],
    ['-1', '命令执行失败', '检查指令参数后重新下发'],
    ['-2', '机器人处于报警状态', '清除报警后重新下发指令'],
    ['-10000', '命令错误', '检查命令是否存在'],
    ['-20000', '参数数量错误', '检查参数个数'],
  ];
  rows.forEach((r, i) => {
    const y = 700 - 22 * i;
    lines.push({ text: r[0] as string, x: 72, y }, { text: r[1] as string, x: 160, y }, { text: r[2] as string, x: 330, y });
  });
  lines.push({ text: '2.1 EnableRobot', x: 72, y: 520, size: 14 });
  lines.push({ text: '使能机器人。执行队列指令前必须先使能机器人。', x: 72, y: 495 });
  lines.push({ text: '2.2 ClearError', x: 72, y: 460, size: 14 });
  lines.push({ text: '清除机器人报警。清除报警后，可根据 RobotMode 判断机器人是否仍处于报警状态。', x: 72, y: 435 });
  lines.push({ text: '2.3 SetCollisionLevel', x: 72, y: 400, size: 14 });
  lines.push({ text: '设置碰撞检测等级。等级越高，碰撞检测越灵敏；0 表示关闭碰撞检测。', x: 72, y: 375 });
  lines.push({ text: '3.1 关节抱闸', x: 72, y: 340, size: 14 });
  lines.push({ text: '关节抱闸无法打开时，检查抱闸电源和接线，再用示教器手动松开抱闸。', x: 72, y: 315 });
  return makeCjkPdf(lines);
}

const engine = engineOverDocs('chinese-pdf', (docs) => {
  const dir = path.join(docs, 'arm-protocol');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'tcp-protocol.pdf'), manual());
});

describe('a Chinese protocol manual in PDF', () => {
  it('makes code records of its error-code table, negative codes included', async () => {
    for (const typed of ['-20000', 'error -20000', '错误码 -20000']) {
      const r = value(await engine().lookupCode({ text: typed }));
      expect(r.matches[0]?.code, typed).toBe('-20000');
      expect(r.matches[0]?.title).toBe('参数数量错误');
      expect(r.matches[0]?.remedy).toBe('检查参数个数');
      expect(r.matches[0]?.page).toBe(1);
    }
  });

  it('answers a code question from the table row, in Chinese', async () => {
    const a = value(await engine().ask({ question: '返回 -2 是什么意思', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('机器人处于报警状态');
    expect(a.citations[0]?.file).toBe('arm-protocol/tcp-protocol.pdf');
  });

  it('answers an English question from the Chinese text through the trade vocabulary (no model)', async () => {
    const collision = value(await engine().search({ query: 'how sensitive is the collision detection', k: 3 }));
    expect(collision.hits[0]?.text).toContain('碰撞检测');
    const brake = value(await engine().search({ query: 'joint brake will not release, what to check', k: 3 }));
    expect(brake.hits[0]?.text).toContain('抱闸');
  });

  it('finds a command by the words of its name (EnableRobot, ClearError)', async () => {
    const enable = value(await engine().search({ query: 'how do I enable the robot', k: 3 }));
    expect(enable.hits[0]?.text).toContain('EnableRobot');
    const clear = value(await engine().search({ query: 'clear the error', k: 3 }));
    expect(clear.hits[0]?.text).toContain('ClearError');
  });
});
