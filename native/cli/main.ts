/**
 * `manualdesk` command line: the same EngineApi as the app. Exit codes: 0 ok, 1 the operation failed
 * (message on stderr; with --json also {"ok":false,"error":{code,message}} on stdout), 2 usage error.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { Command, CommanderError, Option } from 'commander';
import cliProgress from 'cli-progress';
import type { EngineApi, IngestProgress, SearchRequest } from '../contract/api.js';
import { ok, toErrorData, type Result } from '../contract/errors.js';
import type { ConversationTurn, ModelStatus } from '../contract/answer.js';
import { formatAnswer } from './format-answer.js';
import { addModel, listModelStatus, type AddResult } from '../llm/models.js';
import { answerCheckLine, embedderModelLine } from '../contract/messages.js';
import { installedEmbedder, modelSearchDirs } from '../model-discovery.js';
import { defaultLibraryDir } from '../config.js';
import { EMBEDDER_SPELLINGS, parseEmbedderSpec, type EmbedderSpec } from '../embed/models.js';
import { registerPackCommands } from './packs.js';
import { registerModelsCheck } from './models-check.js';
import { emit, withEngine } from './shared.js';
import { terminalName, terminalText } from './terminal-text.js';
import { resolveManualNames } from '../library/identity.js';

class UsageError extends Error {}

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
}

export async function runCli(argv: string[], io: CliIo = process): Promise<number> {
  let exitCode = 0;
  const program = new Command();
  program
    .name('manualdesk')
    .description('Offline search for maintenance manuals and fault-code tables.')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showHelpAfterError('(run "manualdesk --help" for usage)');

  const libraryOption = () =>
    new Option('--library <dir>', 'library folder').default(defaultLibraryDir(), '$MANUALDESK_LIBRARY or ~/.manualdesk/library');

  program
    .command('ingest')
    .description('add manuals (files or folders) to the library; unchanged files are skipped')
    .argument('<paths...>', 'manual files or folders')
    .addOption(libraryOption())
    .option('--embedder <spec>', `${EMBEDDER_SPELLINGS} (default: the library's own; a new library: the installed embedding model, else none)`)
    .option('--reindex', 'parse, chunk and embed every file again')
    .option('--json', 'print the report as JSON')
    .action(async (paths: string[], opts: { library: string; embedder?: string; reindex?: boolean; json?: boolean }) => {
      // A new library gets the installed embedding model (hybrid search); an existing one keeps its own.
      const embedder = parseEmbedder(opts.embedder);
      await withEngine({ libraryDir: opts.library, embedder, newLibraryEmbedder: 'installed', create: true }, async (engine) => {
        const bar = !opts.json && io.stderr.isTTY ? new ProgressBar(io.stderr) : null;
        const res = await engine.ingest({ paths, force: opts.reindex === true }, { onProgress: (p) => bar?.update(p) });
        bar?.stop();
        exitCode = emit(io, res, opts.json, (r) => {
          const lines = [
            `Indexed ${r.files} file(s), ${r.chunks} passage(s) in ${r.seconds} s; ${r.unchanged} unchanged, ${r.removed} removed.` +
              (r.embedded ? ` ${r.embedded} passage(s) indexed for meaning.` : ''),
          ];
          for (const s of r.skipped) lines.push(`  skipped ${terminalName(s.file)}: ${s.reason}`);
          const warned = new Set((r.warnings ?? []).map((w) => w.file));
          // A PDF's warnings say which pages have no text and why; the bare page list is for the others.
          for (const p of r.pagesNeedingOcr) if (!warned.has(p.file)) lines.push(`  ${terminalName(p.file)}: pages without text (need OCR): ${p.pages.join(', ')}`);
          for (const f of r.withoutText ?? []) lines.push(`  ${f}: no searchable text found in it; check that it opens and holds text (not only headings or images).`);
          for (const w of r.warnings ?? []) for (const m of w.messages) lines.push(`  ${terminalName(w.file)}: ${m}`);
          return lines.join('\n');
        });
      });
    });

  program
    .command('search')
    .description('search the library (fault codes first, then passages)')
    .argument('[query]', 'what to look for')
    .addOption(libraryOption())
    .option('--k <n>', 'number of results', '10')
    .option('--batch <file>', 'JSON lines {"id","query"} from a file, or - for standard input; one result per line')
    .addOption(new Option('--mode <mode>', 'retrievers to use').choices(['hybrid', 'keyword', 'vector']))
    .option('--manual <title...>', 'only these manuals')
    .option('--lang <lang...>', 'only passages in these languages (en, zh)')
    .option('--path <prefix>', 'only files under this path')
    .option('--all-revisions', 'also search older revisions of manuals')
    .option('--embedder <spec>', 'the model the library was built with, when it is not in the models folder (onnx:<model folder> or gguf:<model file>)')
    .option('--json', 'print JSON')
    .action(async (query: string | undefined, opts: SearchCliOptions) => {
      const k = parsePositiveInt(opts.k, '--k');
      if (!opts.batch && (query === undefined || query.trim() === '')) {
        throw new UsageError('Give a query, e.g. manualdesk search "spindle will not home", or --batch <file>.');
      }
      await withEngine({ libraryDir: opts.library, readOnly: true, embedder: parseEmbedder(opts.embedder) }, async (engine) => {
        await noteLibraryState(engine, io);
        const base: Omit<SearchRequest, 'query'> = {
          k,
          mode: opts.mode,
          filters: {
            manuals: opts.manual,
            lang: opts.lang as ('en' | 'zh')[] | undefined,
            pathPrefix: opts.path,
            allRevisions: opts.allRevisions,
          },
        };
        if (opts.batch) {
          exitCode = await runBatch(engine, opts.batch, io, (q) => engine.search({ ...base, query: q }));
        } else {
          const res = await engine.search({ ...base, query: query as string });
          exitCode = emit(io, res, opts.json, (r) =>
            r.hits.length === 0
              ? `No passages found for "${r.query}". Try other words, or check that the manual is in the library (manualdesk list).`
              : r.hits
                  .map((h, i) => `${i + 1}. [${h.kind}] ${terminalName(h.file)}${h.page ? ` p.${h.page}` : ''} — ${terminalName(h.section)}\n   ${oneLine(h.text, 220)}`)
                  .join('\n') + `\n(${r.hits.length} results, ${r.ms} ms, ${r.mode})`,
          );
        }
      });
    });

  program
    .command('code')
    .description('look up a fault code exactly (e.g. "E-204", "alarm 9", "p0300")')
    .argument('[text]', 'the code, or a sentence containing it')
    .addOption(libraryOption())
    .option('--manual <title...>', 'only these manuals')
    .option('--equipment <model...>', 'only these machines / models')
    .option('--batch <file>', 'JSON lines {"id","query"}; one result per line')
    .option('--json', 'print JSON')
    .action(async (text: string | undefined, opts: { library: string; manual?: string[]; equipment?: string[]; batch?: string; json?: boolean }) => {
      if (!opts.batch && (text === undefined || text.trim() === '')) throw new UsageError('Give a code, e.g. manualdesk code "alarm 9".');
      await withEngine({ libraryDir: opts.library, readOnly: true }, async (engine) => {
        await noteLibraryState(engine, io);
        const filters = { manuals: opts.manual, equipment: opts.equipment };
        if (opts.batch) {
          exitCode = await runBatch(engine, opts.batch, io, (q) => engine.lookupCode({ text: q, filters }));
        } else {
          const res = await engine.lookupCode({ text: text as string, filters });
          exitCode = emit(io, res, opts.json, (r) => {
            if (r.matches.length === 0) {
              const near = r.nearest.map((n) => `${n.code} (${terminalName(n.title)}, ${terminalName(n.manual)})`).join('; ');
              return r.detected.length === 0
                ? `No fault code recognised in "${r.query}".`
                : `${r.detected.map((k) => r.typed?.[k] ?? k).join(', ')}: not defined in the installed manuals.${near ? `\nDifferent codes that are defined nearby: ${near}` : ''}`;
            }
            return r.matches
              .map(
                (m, i) =>
                  (m.decoded && m.decoded !== r.matches[i - 1]?.decoded ? `${m.decoded}\n` : '') +
                  `${m.code} — ${terminalName(m.title)}${m.scope.length ? ` [${m.scope.join(', ')}]` : ''}\n` +
                  (m.cause ? `  Cause: ${m.cause}\n` : '') +
                  (m.remedy ? `  Remedy: ${m.remedy}\n` : '') +
                  (!m.cause && !m.remedy && m.description ? `  ${m.description}\n` : '') +
                  `  ${terminalName(m.manual)}: ${terminalName(m.file)}${m.page ? ` p.${m.page}` : ''}`,
              )
              .join('\n') + `\n(${r.ms} ms)`;
          });
        }
      });
    });

  program
    .command('list')
    .description('list the manuals in the library')
    .addOption(libraryOption())
    .option('--json', 'print JSON')
    .action(async (opts: { library: string; json?: boolean }) => {
      await withEngine({ libraryDir: opts.library, readOnly: true }, async (engine) => {
        await noteLibraryState(engine, io);
        exitCode = emit(io, await engine.listManuals(), opts.json, (list) =>
          list.length === 0
            ? 'The library is empty. Add manuals with: manualdesk ingest <folder>'
            : list
                .map(
                  (m) =>
                    `${terminalName(m.file)}  "${terminalName(m.title)}"${m.revision ? ` rev ${m.revision}` : ''}${m.current ? '' : ' (older revision)'}  ${m.chunks} passages` +
                    (m.folder ? `  from ${terminalName(m.folder)}` : ''),
                )
                .join('\n'),
        );
      });
    });

  program
    .command('info')
    .description('show the library folder, format and embedder')
    .addOption(libraryOption())
    .option('--json', 'print JSON')
    .action(async (opts: { library: string; json?: boolean }) => {
      await withEngine({ libraryDir: opts.library, readOnly: true }, async (engine) => {
        exitCode = emit(io, await engine.info(), opts.json, (i) =>
          [
            `Library: ${i.dir}`,
            `Format ${i.formatVersion}, chunker ${i.chunkerVersion}`,
            `Embedder: ${i.embedder ? `${i.embedder.id} (${i.embedder.dims}-d), ${i.modelMissing ? 'not installed here: keyword search + fault codes only' : 'hybrid search'}` : `none (keyword search + fault codes). ${addModelHint()}`}`,
            ...(i.embedderModel ? [`Model: ${embedderModelLine(i.embedderModel)}`] : []),
            ...(i.modelMissing ? [missingModelNote(i.modelMissing.message, i.modelToAdd)] : []),
            ...(i.filesRebuilt ? [i.filesRebuilt] : []),
            `${i.files} files, ${i.chunks} passages, ${i.codes} fault codes`,
            ...(i.vectorsPending > 0
              ? [`${i.vectorsPending} passages still without vectors (found by keyword meanwhile): run "manualdesk ingest" on the same folders to finish.`]
              : []),
            ...(i.switching
              ? [
                  `Switching to ${i.switching.to}: ${i.switching.total - i.switching.pending} of ${i.switching.total} passages embedded. ` +
                    `Searches use ${i.embedder?.id ?? 'the current model'} until it completes; run the same "manualdesk ingest … --embedder" again to finish.`,
                ]
              : []),
          ].join('\n'),
        );
      });
    });

  program
    .command('remove')
    .description('remove files from the library (as named by "manualdesk list", or by full path)')
    .argument('<files...>')
    .addOption(libraryOption())
    .option('--json', 'print JSON')
    .action(async (files: string[], opts: { library: string; json?: boolean }) => {
      await withEngine({ libraryDir: opts.library }, async (engine) => {
        exitCode = emit(io, await removeNamed(engine, files), opts.json, (r) => `Removed ${r.removed} file(s).`);
      });
    });

  program
    .command('repair')
    .description("rebuild the library's file list (files.json) from its stored passages when it is missing, damaged or older than the library")
    .addOption(libraryOption())
    .option('--json', 'print JSON')
    .action(async (opts: { library: string; json?: boolean }) => {
      // Opening the library for writing checks files.json against commit.json and the tables, and rebuilds it.
      await withEngine({ libraryDir: opts.library }, async (engine) => {
        const res = await engine.info();
        exitCode = emit(io, res.ok ? { ok: true, value: { repaired: res.value.filesRebuilt ?? null, files: res.value.files } } : res, opts.json, (r) =>
          r.repaired ?? `The library's file list is complete (${r.files} files); nothing to repair.`,
        );
      });
    });

  registerPackCommands(program, {
    io,
    libraryOption,
    setExit: (code) => (exitCode = code),
    usage: (message) => new UsageError(message),
    parseEmbedder,
  });

  program
    .command('ask')
    .description('answer a question from the manuals, citing them (refuses when they do not cover it)')
    .argument('[question]', 'the question, e.g. "how do I reset alarm 9"')
    .addOption(libraryOption())
    .option('--k <n>', 'passages to answer from', '8')
    .option('--batch <file>', 'JSON lines {"id","query"}; one answer per line')
    .option('--conversation <file>', 'JSON file with earlier turns [{"question","answer"}] (the question is a follow-up)')
    .addOption(new Option('--prefer <mode>', 'answer mode').choices(['auto', 'extractive', 'generative']).default('auto'))
    .option('--manual <title...>', 'only these manuals')
    .option('--json', 'print JSON')
    .action(async (question: string | undefined, opts: AskCliOptions) => {
      const k = parsePositiveInt(opts.k, '--k');
      if (!opts.batch && (question === undefined || question.trim() === '')) {
        throw new UsageError('Give a question, e.g. manualdesk ask "what does alarm 9 mean", or --batch <file>.');
      }
      const conversation = opts.conversation ? readConversation(opts.conversation) : undefined;
      await withEngine({ libraryDir: opts.library, readOnly: true }, async (engine) => {
        await noteLibraryState(engine, io);
        const base = { k, prefer: opts.prefer, conversation, filters: opts.manual ? { manuals: opts.manual } : undefined };
        if (opts.batch) {
          exitCode = await runBatch(engine, opts.batch, io, (q) => engine.ask({ ...base, question: q }));
        } else {
          // Streamed tokens go to stderr on a terminal, so stdout keeps the final, checked answer.
          const stream = !opts.json && io.stderr.isTTY ? (t: string) => io.stderr.write(t) : undefined;
          const res = await engine.ask({ ...base, question: question as string }, { onToken: stream });
          if (stream) io.stderr.write('\n');
          exitCode = emit(io, res, opts.json, formatAnswer);
        }
      });
    });

  const models = program.command('models').description('language, embedding and reranking models (never downloaded)');
  models
    .command('list')
    .description('known models and where they are installed')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const list = await listModelStatus({ dirs: modelSearchDirs() });
      exitCode = emit(io, ok(list), opts.json, formatModels);
    });
  models
    .command('verify')
    .description('check installed models against the sha256 in the manifest')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const list = await listModelStatus({ dirs: modelSearchDirs(), verify: true });
      exitCode = emit(io, ok(list), opts.json, formatModels);
      if (list.some((m) => m.verified === false)) exitCode = 1;
    });
  registerModelsCheck(models, { io, libraryOption, setExit: (code) => (exitCode = code), usage: (message) => new UsageError(message) });
  models
    .command('add')
    .description('copy a model file (.gguf) or model folder into the user models folder, checking its sha256')
    .argument('<path>', 'the model file or folder')
    .option('--json', 'print JSON')
    .action(async (source: string, opts: { json?: boolean }) => {
      const dest = modelSearchDirs()[0] as string;
      let res: Result<AddResult>;
      try {
        res = ok(await addModel(source, dest));
      } catch (err) {
        res = { ok: false, error: toErrorData(err) };
      }
      exitCode = emit(io, res, opts.json, (r) =>
        `Installed ${r.id} (${r.role}) at ${r.path}; ${r.verified === true ? 'sha256 verified' : 'no known checksum (unverified)'}.`,
      );
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UsageError) {
      io.stderr.write(`manualdesk: ${err.message}\n`);
      return 2;
    }
    io.stderr.write(`manualdesk: ${terminalText((err as Error)?.message ?? String(err))}\n`);
    return 1;
  }
}

interface SearchCliOptions {
  library: string;
  k: string;
  batch?: string;
  mode?: 'hybrid' | 'keyword' | 'vector';
  manual?: string[];
  lang?: string[];
  path?: string;
  allRevisions?: boolean;
  embedder?: string;
  json?: boolean;
}

interface AskCliOptions {
  library: string;
  k: string;
  batch?: string;
  conversation?: string;
  prefer: 'auto' | 'extractive' | 'generative';
  manual?: string[];
  json?: boolean;
}

function readConversation(file: string): ConversationTurn[] {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--conversation ${file}: ${(err as Error).message}`);
  }
  const turns = Array.isArray(raw) ? raw : (raw as { conversation?: unknown })?.conversation;
  if (!Array.isArray(turns) || !turns.every((t) => typeof t?.question === 'string' && typeof t?.answer === 'string')) {
    throw new UsageError(`--conversation ${file}: expected [{"question": "...", "answer": "..."}, ...].`);
  }
  return turns as ConversationTurn[];
}

/**
 * Removes the manuals a technician named: a name two manuals answer to (two folders' README.md) is
 * refused with both listed, never guessed.
 */
async function removeNamed(engine: EngineApi, names: string[]): Promise<Result<{ removed: number }>> {
  const manuals = await engine.listManuals();
  if (!manuals.ok) return manuals;
  let keys: string[];
  try {
    keys = resolveManualNames(names, manuals.value);
  } catch (err) {
    return { ok: false, error: toErrorData(err) };
  }
  return engine.removeFiles(keys);
}

function formatModels(list: ModelStatus[]): string {
  return list
    .map(
      (m) =>
        `${m.installed ? '●' : '○'} ${m.id} [${m.role}] ${m.installed ? (m.path ?? 'bundled') : 'not installed'}` +
        `${m.verified === true ? ' (sha256 ok)' : m.verified === false ? ' (SHA256 MISMATCH)' : ''}${m.inUse ? ' (in use)' : ''} — ${m.license}` +
        (m.role === 'llm' && m.installed ? `\n    answer check: ${answerCheckLine(m.answerCheck ?? null)}` : ''),
    )
    .join('\n');
}

/** Reads JSON lines {"id","query"}; writes one JSON object per line with the id. */
async function runBatch<T extends object>(
  _engine: EngineApi,
  file: string,
  io: CliIo,
  run: (query: string) => Promise<Result<T>>,
): Promise<number> {
  // Checked before the stream is created: a read stream on a missing file emits an 'error' nobody
  // listens to yet, which crashed the process (exit 1, stack trace) instead of a usage error.
  if (file !== '-' && !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
    throw new UsageError(`Batch file not found (or not a file): ${file}`);
  }
  const input = file === '-' ? io.stdin : fs.createReadStream(file, 'utf8');
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let failures = 0;
  let lineNo = 0;
  for await (const line of rl) {
    lineNo++;
    if (line.trim() === '') continue;
    let item: { id?: unknown; query?: unknown };
    try {
      item = JSON.parse(line) as { id?: unknown; query?: unknown };
    } catch {
      failures++;
      io.stdout.write(JSON.stringify({ id: null, line: lineNo, error: { code: 'INVALID_INPUT', message: `Line ${lineNo} is not JSON.` } }) + '\n');
      continue;
    }
    const res = await run(typeof item.query === 'string' ? item.query : '');
    if (res.ok) io.stdout.write(JSON.stringify({ id: item.id ?? null, ...res.value }) + '\n');
    else {
      failures++;
      io.stdout.write(JSON.stringify({ id: item.id ?? null, error: res.error }) + '\n');
    }
  }
  return failures > 0 ? 1 : 0;
}

/**
 * What a library whose own model is not installed here still does, and how to get search by meaning
 * back: install its model, or switch to the one installed here (the same ingest that --embedder names).
 */
function missingModelNote(message: string, installed: string | null): string {
  const found = installed ? embedderFlag(installedEmbedder(modelSearchDirs())) : null;
  const switchTo = found ? ` Or switch it to the installed model ${installed}: manualdesk ingest <your manual folders> --embedder ${found}` : '';
  return `Searching by keyword and fault code only. ${message}${switchTo}`;
}

/** The --embedder spelling of an installed model (onnx:<folder>, gguf:<file>); null for none. */
function embedderFlag(spec: EmbedderSpec | null): string | null {
  return spec?.kind === 'onnx' ? `onnx:${spec.dir}` : spec?.kind === 'gguf' ? `gguf:${spec.file}` : null;
}

/**
 * Says on stderr, before results, what limits them: search by meaning off because the library's model
 * is missing here, or a file list rebuilt from the stored passages (files.json lost, damaged or older).
 */
async function noteLibraryState(engine: EngineApi, io: CliIo): Promise<void> {
  const info = await engine.info();
  if (info.ok && info.value.filesRebuilt) io.stderr.write(`manualdesk: ${terminalText(info.value.filesRebuilt)}\n`);
  if (info.ok && info.value.modelMissing) io.stderr.write(`manualdesk: ${terminalText(missingModelNote(info.value.modelMissing.message, info.value.modelToAdd))}\n`);
}

/** How a keyword-only library gets semantic search: the installed model (if any) and the re-index command. */
function addModelHint(): string {
  const spec = installedEmbedder(modelSearchDirs());
  const flag = embedderFlag(spec);
  const reindex = (embedder: string) => `manualdesk ingest <your manual folders> --embedder ${embedder}`;
  return spec && flag
    ? `The embedding model ${(spec.kind === 'onnx' || spec.kind === 'gguf') && spec.modelId ? spec.modelId : flag} is installed; to add semantic search run: ${reindex(flag)}`
    : `To add semantic search, install an embedding model (npm run models:fetch in a source checkout, or manualdesk models add <model folder>), then run: ${reindex('onnx:<model folder>')}`;
}

function parseEmbedder(spec: string | undefined): EmbedderSpec | undefined {
  try {
    return parseEmbedderSpec(spec);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function parsePositiveInt(v: string, name: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new UsageError(`${name} must be a whole number from 1 to 200.`);
  return n;
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

class ProgressBar {
  private bar: cliProgress.SingleBar;
  private started = false;
  constructor(stream: NodeJS.WritableStream) {
    this.bar = new cliProgress.SingleBar(
      { stream: stream as NodeJS.WriteStream, format: '{phase} [{bar}] {value}/{total} {file}', hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
  }
  update(p: IngestProgress): void {
    if (!this.started) {
      this.bar.start(Math.max(p.total, 1), p.done, { phase: p.phase, file: '' });
      this.started = true;
    }
    this.bar.setTotal(Math.max(p.total, 1));
    this.bar.update(p.done, { phase: p.phase.padEnd(5), file: terminalName(p.file ?? '') });
  }
  stop(): void {
    if (this.started) this.bar.stop();
  }
}
