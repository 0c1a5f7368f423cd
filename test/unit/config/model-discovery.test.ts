import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelSearchDirs, packageRoot, specForRecorded } from '../../../native/model-discovery.js';

describe('model discovery', () => {
  it('searches $MANUALDESK_MODELS, the user folder, then the checkout models/local and models', () => {
    const root = packageRoot();
    expect(existsSync(path.join(root, 'package.json'))).toBe(true);
    expect(modelSearchDirs({ MANUALDESK_MODELS: '/m', HOME: '/h' })).toEqual([
      '/m',
      path.join('/h', '.manualdesk', 'models'),
      path.join(root, 'models', 'local'),
      path.join(root, 'models'),
    ]);
    expect(modelSearchDirs({ HOME: '/h' })[0]).toBe(path.join('/h', '.manualdesk', 'models'));
  });

  it('with MANUALDESK_MODELS_ONLY=1 searches $MANUALDESK_MODELS alone, or nothing', () => {
    expect(modelSearchDirs({ MANUALDESK_MODELS: '/m', MANUALDESK_MODELS_ONLY: '1', HOME: '/h' })).toEqual(['/m']);
    expect(modelSearchDirs({ MANUALDESK_MODELS_ONLY: '1', HOME: '/h' })).toEqual([]);
  });

  it('in the installed app also searches the models the installer bundled beside app.asar, after the user folder', () => {
    const asar = path.join('/opt', 'ManualDesk', 'resources', 'app.asar');
    expect(modelSearchDirs({ HOME: '/h' }, asar)).toEqual([
      path.join('/h', '.manualdesk', 'models'),
      path.join(asar, 'models', 'local'),
      path.join('/opt', 'ManualDesk', 'resources', 'models', 'local'),
      path.join(asar, 'models'),
    ]);
  });

  it('names a missing recorded model MODEL_MISSING and an unknown embedder EMBEDDER_MISMATCH', () => {
    expect(specForRecorded(null)).toEqual({ kind: 'none' });
    expect(() => specForRecorded('onnx:nobody/none@abc', ['/nonexistent'])).toThrow(expect.objectContaining({ code: 'MODEL_MISSING' }));
    expect(() => specForRecorded('weird:x')).toThrow(expect.objectContaining({ code: 'EMBEDDER_MISMATCH' }));
  });
});
