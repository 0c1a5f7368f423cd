import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The layering rule of eslint.config.js, on code that is never written to disk. */
async function restricted(filePath: string, code: string): Promise<string[]> {
  const [res] = await new ESLint().lintText(code, { filePath });
  return (res?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering lint', () => {
  it('fails an upward import from a stage folder', async () => {
    expect(await restricted('native/store/probe.ts', "import { toHit } from '../search/channels/hybrid.js';\nexport const x = toHit;\n")).toHaveLength(1);
    expect(await restricted('native/parse/formats/probe.ts', "import { ask } from '../../pipelines/answer.js';\nexport const x = ask;\n")).toHaveLength(1);
  });

  it('lets only the faces import the composition root', async () => {
    const code = "import { createEngine } from '../engine.js';\nexport const x = createEngine;\n";
    expect(await restricted('native/packs/probe.ts', code)).toHaveLength(1);
    expect(await restricted('native/cli/probe.ts', code)).toHaveLength(0);
  });

  it('allows downward imports', async () => {
    expect(await restricted('native/search/probe.ts', "import { sqlString } from '../store/filters.js';\nexport const x = sqlString;\n")).toHaveLength(0);
  });
});
