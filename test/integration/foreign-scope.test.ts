/**
 * A Chinese question about a product whose manuals are all in English ("<product> 校准电机之前要注意
 * 什么安全事项？"): the product's folder is searched on its own, without the product's name, so the
 * section that answers (the safety warning of its calibration guide) comes before the Chinese
 * manuals of another product that share the question's words and the reference pages that repeat
 * the name. Keyword mode, through the real engine (name index → foreign-scope search).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const engine = engineOverDocs('foreign-scope', (docs) => {
  fs.mkdirSync(path.join(docs, 'velox', 'guides'), { recursive: true });
  fs.mkdirSync(path.join(docs, 'printer-zh'), { recursive: true });
  fs.writeFileSync(
    path.join(docs, 'velox', 'index.md'),
    '# Velox documentation\n\nVelox is a servo drive. The Velox guides cover the Velox motor setup, Velox calibration, ' +
      'Velox wiring and Velox tuning. Every Velox drive ships with the Velox tool.\n',
  );
  fs.writeFileSync(
    path.join(docs, 'velox', 'guides', 'calibration.md'),
    '# Calibration\n\n## Calibration command\n\nRun the tool with --calibrate for the attached motor.\n\n' +
      '## Important safety warning\n\nWARNING: The motor must be able to spin freely during calibration. ' +
      'Remove any load from the shaft and keep hands clear.\n',
  );
  // Reference pages that repeat the product's name, about other things.
  fs.mkdirSync(path.join(docs, 'velox', 'reference'), { recursive: true });
  ['CAN bus', 'registers', 'firmware update', 'power supply', 'encoder', 'tuning', 'limits', 'telemetry'].forEach((t, i) => {
    fs.writeFileSync(path.join(docs, 'velox', 'reference', `ref-${i}.md`), `# Velox ${t}\n\nThe Velox drive ${t} reference. Each Velox board reports its ${t} state to the Velox tool.\n`);
  });
  fs.writeFileSync(
    path.join(docs, 'velox', 'guides', 'wiring.md'),
    '# Wiring\n\nConnect the three motor phases and the encoder cable before power is applied.\n',
  );
  // Another product's Chinese manuals, full of the question's own words (注意事项, 校准, 电机, 安全).
  const topics = ['热床', '喷嘴', '挤出机', '风扇', '限位开关', '步进驱动', '加热棒', '温度传感器'];
  topics.forEach((t, i) => {
    fs.writeFileSync(
      path.join(docs, 'printer-zh', `part-${i}.md`),
      `# ${t}\n\n## 注意事项\n\n校准${t}之前要注意安全：先关闭电源。电机停止后再操作。\n\n## 校准\n\n按菜单校准${t}，注意记录结果。\n`,
    );
  });
});

describe('a question in the other language than the named product’s manuals', () => {
  it('ranks the answering section of the product’s manual in the first three, ahead of the other product’s Chinese pages (keyword mode)', async () => {
    const res = value(await engine().search({ query: 'Velox 校准电机之前要注意什么安全事项？', k: 10 }));
    expect(res.mode).toBe('keyword');
    const at = res.hits.findIndex((h) => h.text.includes('spin freely during calibration'));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(3);
    const firstOther = res.hits.findIndex((h) => h.file.startsWith('printer-zh/'));
    expect(firstOther === -1 || at < firstOther).toBe(true);
  });
});
