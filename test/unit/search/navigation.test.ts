import { describe, expect, it } from 'vitest';
import { retrieve } from '../../../native/search/retriever.js';
import { isNavigation, NAVIGATION_SINK, sinkNavigation } from '../../../native/search/rank/navigation.js';
import { chunk, record, storePerTest } from '../store/fixtures.js';

const HUB = [
  '# Using the spindle drive',
  'Step-by-step guides for the drive.',
  '- [Mounting](mounting.md) - Physical installation',
  '- [Wiring](wiring.md) - Power and motor cables',
  '- [Tuning](tuning.md) - Speed loop gains',
  '- [Faults](faults.md) - What each fault means',
].join('\n');

describe('isNavigation', () => {
  it('knows a hub page, a numbered contents list, a PDF contents page and AsciiDoc cross-references', () => {
    expect(isNavigation(HUB)).toBe(true);
    expect(isNavigation('1. **[Mounting](guides/mounting.md)** - Mount the drive\n2. **[Wiring](guides/wiring.md)** - Connect power\n3. **[Tuning](guides/tuning.md)**')).toBe(true);
    expect(isNavigation('Contents\n1 Safety .......... 3\n2 Installing the spindle .......... 7\n2.1 Wiring . . . . . . 9\n3 Faults .......... 14')).toBe(true);
    expect(isNavigation('* <<mounting,Mounting>>\n* <<wiring,Wiring>>\n* xref:tuning.adoc[Tuning the loop]')).toBe(true);
    // A file inventory's row (header, then path, size, checksum): it names files, it answers nothing.
    const sha = 'a3f5'.repeat(16);
    expect(isNavigation(`path\tbytes\tsha256\tsource\ndrive/docs/troubleshooting/overvoltage-fault-34.md\t3343\t${sha}\tvendor/drive`)).toBe(true);
    expect(isNavigation(`"firmware/drive-2.4.bin","512000","${sha}"`)).toBe(true);
  });

  it('leaves content alone: prose with links, a list of web links, steps, Chinese prose with a link', () => {
    expect(isNavigation('If the drive trips, read [Faults](faults.md) first.\nThen check the fuse.\nReplace the fan when it is noisy.')).toBe(false);
    expect(isNavigation('- **Crimp tool**: [TU-190](https://shop.example.com/tu190)\n- **Wire**: [22 AWG](https://shop.example.com/wire)\n- **Heat shrink**: [3 mm](https://shop.example.com/hs)')).toBe(false);
    expect(isNavigation('1. Switch the drive off.\n2. Wait five minutes for the bus to discharge.\n3. Remove the cover.')).toBe(false);
    expect(isNavigation('如果微控制器没有收到每 5 秒的确认，它就会进入关闭状态，详情请见[MCU 命令](MCU_Commands.md)文档。\n另外主机软件还实现了检查加热器和温度传感器是否正常工作的代码，见[配置参考](Config_Reference.md)。\n这些示例应该足以完成初始安装。')).toBe(false);
    expect(isNavigation('- [Faults](faults.md)')).toBe(false); // one link is not a contents list
    // A path or a hash alone is content: a setting that names its file, a step that quotes a checksum to compare.
    expect(isNavigation('Copy the file config/printer.cfg to the SD card.\nRestart the printer.')).toBe(false);
    expect(isNavigation(`Compare the checksum with ${'a3f5'.repeat(16)} before flashing.\nThen flash the board.`)).toBe(false);
  });
});

describe('sinkNavigation', () => {
  const hit = (id: string, score: number, text = `text of ${id}`) => ({ id, score, text });

  it(`moves a navigation passage ${NAVIGATION_SINK} places down, keeps the rest in order and the scores sorted`, () => {
    const ranked = [hit('hub', 9, HUB), ...['a', 'b', 'c', 'd', 'e', 'f'].map((id, i) => hit(id, 8 - i))];
    const out = sinkNavigation(ranked, (h) => h.text);
    expect(out.map((h) => h.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'hub', 'f']);
    for (let i = 1; i < out.length; i++) expect(out[i]!.score).toBeLessThanOrEqual(out[i - 1]!.score);
    // Nothing is dropped, and a list without navigation is returned as it is.
    expect(sinkNavigation([hit('hub', 1, HUB)], (h) => h.text).map((h) => h.id)).toEqual(['hub']);
    const plain = [hit('a', 2), hit('b', 1)];
    expect(sinkNavigation(plain, (h) => h.text)).toBe(plain);
  });
});

describe('search ranks a hub page below the page it points to', () => {
  const stores = storePerTest();

  it('keyword: the faults page leads although the hub repeats every question word', async () => {
    const store = await stores.open({ embedder: null, create: true });
    const fault =
      'Fault F7 is raised when the controller sees no current in one phase for longer than the configured time. ' +
      'The most common cause is an open motor cable: check the wiring of the plug at the drive and at the motor, ' +
      'reseat both connectors, and measure each phase for continuity before you power up again.';
    const hub = [
      '- [Drive motor cable wiring](cable.md) - Drive motor cable',
      '- [Drive wiring](wiring.md) - Drive cable wiring',
      '- [Motor cable](motor.md) - Motor wiring',
    ].join('\n');
    await store.replaceFile(record('drive/index.md', { title: 'Drive' }), [chunk('drive/index.md', 0, hub, { manual: 'Drive' })], null, []);
    await store.replaceFile(record('drive/faults.md', { title: 'Drive faults' }), [chunk('drive/faults.md', 0, fault, { manual: 'Drive faults' })], null, []);
    await store.compact();
    const res = await retrieve([{ pack: null, store, codes: null, embedder: null }], { query: 'drive motor cable wiring', k: 5 });
    expect(res.hits.map((h) => h.file)).toEqual(['drive/faults.md', 'drive/index.md']);
  });
});
