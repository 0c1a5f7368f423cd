/**
 * `manualdesk keys …` and `manualdesk pack …`: registered on the main command by native/cli/main.ts.
 * Same conventions: --json prints the value (or {"ok":false,"error":{code,message}}); exit 0 ok,
 * 1 refused or failed, 2 usage.
 */
import type { Command, Option } from 'commander';
import type { PackInfo, PackProgress, PackVerifyReport } from '../contract/packs.js';
import { toErrorData, type EngineErrorData, type Result } from '../contract/errors.js';
import { emit as emitTo, reportError, withEngine } from './shared.js';
import { EMBEDDER_SPELLINGS, type EmbedderSpec } from '../embed/models.js';
import { buildPack } from '../packs/build.js';
import { generateKeys, trustKey } from '../packs/keys.js';

export interface PackCliContext {
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream & { isTTY?: boolean } };
  libraryOption: () => Option;
  setExit: (code: number) => void;
  usage: (message: string) => Error;
  parseEmbedder: (spec: string | undefined) => EmbedderSpec | undefined;
}

export function registerPackCommands(program: Command, ctx: PackCliContext): void {
  const { io } = ctx;
  const emit = <T>(res: Result<T>, json: boolean | undefined, human: (v: T) => string): void => ctx.setExit(emitTo(io, res, json, human));
  const fail = (error: EngineErrorData, json: boolean | undefined, extra: Record<string, unknown> = {}): void => {
    reportError(io, error, json, extra);
    ctx.setExit(1);
  };
  const progress = (json: boolean | undefined) => {
    if (json || !io.stderr.isTTY) return undefined;
    let last = 0;
    return (p: PackProgress) => {
      const now = Date.now();
      if (now - last < 250) return;
      last = now;
      const mb = (n: number) => (n / 1024 ** 2).toFixed(0);
      io.stderr.write(`\r${p.phase} ${mb(p.bytesDone)}/${mb(p.bytesTotal)} MB, ${p.filesDone}/${p.filesTotal} files   `);
    };
  };
  const abortOnSigint = () => {
    const ac = new AbortController();
    const onInt = () => ac.abort();
    process.once('SIGINT', onInt);
    return { signal: ac.signal, done: () => process.off('SIGINT', onInt) };
  };

  const keys = program.command('keys').description('publisher keys for signing packs, and the keys a library trusts');
  keys
    .command('generate')
    .description('make an ed25519 key pair: private.pem (keep it with the publisher) and public.pem (give it to sites)')
    .requiredOption('--out <dir>', 'folder for private.pem and public.pem')
    .option('--json', 'print JSON')
    .action(async (opts: { out: string; json?: boolean }) => {
      const res = await wrap(() => generateKeys(opts.out));
      emit(res, opts.json, (r) => `Wrote ${r.privateKey} (keep it secret) and ${r.publicKey}.\nFingerprint: ${r.fingerprint}`);
    });
  keys
    .command('trust')
    .description("trust a publisher's public key in a library (packs signed with it import without --allow-unsigned)")
    .argument('<public.pem>')
    .addOption(ctx.libraryOption())
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { library: string; json?: boolean }) => {
      const res = await wrap(() => trustKey(file, opts.library));
      emit(res, opts.json, (r) => `Trusted key ${r.fingerprint} (${r.file}).`);
    });

  const pack = program.command('pack').description('manual and model packs: build, verify, import, update, roll back');
  pack
    .command('build')
    .description('index a folder of manuals (or, with --models, model folders) and write a signed pack')
    .argument('<folder>')
    .requiredOption('--out <file>', 'pack file to write (split packs: <file>.001, .002, …)')
    .option('--key <private.pem>', 'sign with this key (unsigned otherwise)')
    .option('--id <id>', 'pack id (default: from --name)')
    .option('--name <name>', 'pack name shown to users')
    .option('--version <version>', 'pack version', '1')
    .option('--publisher <name>', 'publisher shown to users', '')
    .option('--models', 'a model pack of a models folder (e.g. models/local): each model folder, and each loose .gguf, is one model')
    .option('--embedder <spec>', `${EMBEDDER_SPELLINGS} (default none)`)
    .option('--split-size <bytes>', 'largest part size in bytes (default just under 4 GB for FAT32)')
    .option('--json', 'print JSON')
    .action(async (folder: string, opts: BuildCliOptions) => {
      const name = opts.name ?? opts.id;
      const id = opts.id ?? (name ? slug(name) : undefined);
      if (!id) throw ctx.usage('Give --id or --name for the pack.');
      const splitSize = opts.splitSize === undefined ? undefined : Number(opts.splitSize);
      if (splitSize !== undefined && (!Number.isInteger(splitSize) || splitSize < 1024)) throw ctx.usage('--split-size must be a whole number of bytes, at least 1024.');
      const stop = abortOnSigint();
      try {
        const res = await wrap(() =>
          buildPack({
            source: folder,
            out: opts.out,
            kind: opts.models ? 'models' : 'manuals',
            id,
            name: name ?? id,
            version: opts.version,
            publisher: opts.publisher,
            keyFile: opts.key,
            embedder: ctx.parseEmbedder(opts.embedder),
            splitSize,
            signal: stop.signal,
            onProgress: progress(opts.json),
          }),
        );
        emit(
          res.ok
            ? {
                ok: true,
                value: {
                  parts: res.value.parts,
                  bytes: res.value.bytes,
                  signed: res.value.signed,
                  id: res.value.manifest.id,
                  version: res.value.manifest.version,
                  files: res.value.manifest.files.length,
                  models: res.value.manifest.models.map((m) => ({ id: m.id, role: m.role, known: m.catalog?.id ?? null, bytes: m.files.reduce((n, f) => n + f.size, 0) })),
                },
              }
            : res,
          opts.json,
          (r) =>
            [
              `Wrote ${r.parts.join(', ')} (${r.bytes} bytes, ${r.files} files${r.signed ? ', signed' : ', UNSIGNED'}).`,
              ...r.models.map((m) => `  model ${m.id} [${m.role ?? 'unknown role'}] ${m.known ? `= ${m.known} (sha256 checked against models/manifest.json)` : '(not in models/manifest.json: unchecked)'}, ${m.bytes} bytes`),
            ].join('\n'),
        );
      } finally {
        stop.done();
      }
    });

  pack
    .command('verify')
    .description('check a pack: signature, every checksum; with --library also trust and model compatibility')
    .argument('<file>')
    .option('--library <dir>', 'check trust and compatibility against this library')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { library?: string; json?: boolean }) => {
      const stop = abortOnSigint();
      try {
        let res: Result<PackVerifyReport>;
        if (opts.library) {
          res = await withEngine({ libraryDir: opts.library, readOnly: true }, (engine) =>
            engine.verifyPack({ file }, { signal: stop.signal, onProgress: progress(opts.json) }),
          );
        } else {
          const { verifyPack } = await import('../packs/install.js');
          res = await wrap(() => verifyPack(file, null, { signal: stop.signal, onProgress: progress(opts.json) }));
        }
        if (res.ok && !res.value.ok) {
          fail(res.value.error ?? { code: 'PACK_INVALID', message: res.value.problems.join(' ') }, opts.json, { report: res.value });
          if (!opts.json) io.stdout.write(describeReport(res.value) + '\n');
          return;
        }
        emit(res, opts.json, describeReport);
      } finally {
        stop.done();
      }
    });

  for (const mode of ['import', 'update'] as const) {
    pack
      .command(mode)
      .description(mode === 'import' ? 'verify a pack and install it into the library (atomically)' : 'install a newer version of an installed pack; the older is kept for rollback')
      .argument('<file>')
      .addOption(ctx.libraryOption())
      .option('--allow-unsigned', 'accept an unsigned pack or an untrusted key (the pack is marked unverified)')
      .option('--json', 'print JSON')
      .action(async (file: string, opts: { library: string; allowUnsigned?: boolean; json?: boolean }) => {
        const stop = abortOnSigint();
        try {
          await withEngine({ libraryDir: opts.library }, async (engine) => {
            const req = { file, allowUnsigned: opts.allowUnsigned === true };
            const hooks = { signal: stop.signal, onProgress: progress(opts.json) };
            const res = mode === 'import' ? await engine.importPack(req, hooks) : await engine.updatePack(req, hooks);
            emit(res, opts.json, (p) => `Installed ${describePack(p)}.`);
          });
        } finally {
          stop.done();
        }
      });
  }

  pack
    .command('list')
    .description('list the installed packs')
    .addOption(ctx.libraryOption())
    .option('--json', 'print JSON')
    .action(async (opts: { library: string; json?: boolean }) => {
      await withEngine({ libraryDir: opts.library, readOnly: true }, async (engine) =>
        emit(await engine.listPacks(), opts.json, (list) => (list.length === 0 ? 'No packs installed.' : list.map(describePack).join('\n'))),
      );
    });

  for (const [name, what] of [
    ['remove', 'uninstall a pack for real (every version)'],
    ['rollback', 'make the previous version of a pack active again (the newer one is deleted)'],
  ] as const) {
    pack
      .command(name)
      .description(what)
      .argument('<id>')
      .addOption(ctx.libraryOption())
      .option('--json', 'print JSON')
      .action(async (id: string, opts: { library: string; json?: boolean }) => {
        await withEngine({ libraryDir: opts.library }, async (engine) => {
          if (name === 'remove') emit(await engine.removePack({ id }), opts.json, (r) => `Removed pack ${r.removed}.`);
          else emit(await engine.rollbackPack({ id }), opts.json, (p) => `Rolled back: ${describePack(p)}.`);
        });
      });
  }
}

interface BuildCliOptions {
  out: string;
  key?: string;
  id?: string;
  name?: string;
  version: string;
  publisher: string;
  models?: boolean;
  embedder?: string;
  splitSize?: string;
  json?: boolean;
}

async function wrap<T>(fn: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return { ok: false, error: toErrorData(err) };
  }
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-._]+|-+$/g, '').slice(0, 64);
}

function describePack(p: PackInfo): string {
  const older = p.versions.filter((v) => v !== p.active);
  return (
    `${p.id} ${p.active} "${p.name}" (${p.kind}${p.publisher ? `, ${p.publisher}` : ''})` +
    `${p.unverified ? ' UNVERIFIED' : p.signer ? `, signed ${p.signer.fingerprint.slice(0, 16)}…` : ''}` +
    `${older.length ? `, rollback to ${older.join(', ')}` : ''}`
  );
}

function describeReport(r: PackVerifyReport): string {
  return [
    `${r.ok ? 'OK' : 'NOT OK'}: ${r.pack.id} ${r.pack.version} "${r.pack.name}" (${r.pack.kind})`,
    `Signature: ${r.signature}${r.pack.signer ? ` (${r.pack.signer.fingerprint})` : ''}${r.trusted === null ? '' : r.trusted ? ', trusted' : ', not trusted'}`,
    `Checksums: ${r.checksums.checked} checked, ${r.checksums.failed.length} failed`,
    ...(r.embedderCompatible === null ? [] : [`Embedding model compatible: ${r.embedderCompatible ? 'yes' : 'no'}`]),
    ...r.problems.map((p) => `  - ${p}`),
  ].join('\n');
}
