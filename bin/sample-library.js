/**
 * The bundled fictional sample library that `npm start` opens when no library is named: built once
 * from samples/library through the engine's own ingest, rebuilt when the samples change, and given the
 * search model as soon as one is installed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Same name as native/library/layout.ts SAMPLE_MARKER_FILE (this file runs before the TypeScript loader). */
const SAMPLE_MARKER = 'manualdesk-sample.json';

/** Names, sizes and times of the sample files: the sample library is rebuilt when they change. */
function samplesSignature(samples) {
  const hash = crypto.createHash('sha256');
  for (const name of fs.readdirSync(samples).sort()) {
    const stat = fs.statSync(path.join(samples, name));
    hash.update(`${name}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** Removes the manuals the sample library read from an earlier samples folder. */
async function removeSamplesFrom(engine, folder) {
  const manuals = await engine.listManuals();
  if (!manuals.ok) throw new Error(manuals.error.message);
  const stale = manuals.value.filter((m) => m.folder && path.resolve(m.folder) === folder).map((m) => m.file);
  if (stale.length === 0) return;
  const res = await engine.removeFiles(stale);
  if (!res.ok) throw new Error(res.error.message);
  console.log(`Removed ${res.value.removed} sample file(s) read earlier from ${folder}.`);
}

/** Builds (or refreshes) the sample library through the engine's own ingest. */
export async function ensureSampleLibrary(createEngine, dir, samples) {
  const marker = path.join(dir, SAMPLE_MARKER);
  const signature = samplesSignature(samples);
  let previous = null;
  let previousSamples = null;
  try {
    const recorded = JSON.parse(fs.readFileSync(marker, 'utf8'));
    previous = recorded.signature;
    previousSamples = typeof recorded.samples === 'string' ? path.resolve(recorded.samples) : null;
  } catch {
    // No marker: first run, or an interrupted build (ingest resumes it; unchanged files are skipped).
  }
  const engine = await createEngine({ libraryDir: dir, create: true });
  try {
    if (previous !== signature) {
      console.log(`${previous ? 'Updating' : 'Creating'} the sample library in ${dir} …`);
      // When the samples changed, re-read them all: a changed sidecar alone does not change a file's hash.
      const res = await engine.ingest({ paths: [samples], force: previous !== null });
      if (!res.ok) throw new Error(res.error.message);
      const r = res.value;
      console.log(`Sample library ready: ${r.files} files, ${r.chunks} passages (${r.seconds.toFixed(1)} s).`);
      if (r.skipped.length > 0) console.log(`Skipped: ${r.skipped.map((s) => `${s.file} (${s.reason})`).join('; ')}`);
      // Samples read from another checkout before (a copied or moved project): a file's key includes its
      // folder, so those are other manuals now. Only the samples are removed; manuals a person added stay.
      if (previousSamples && previousSamples !== path.resolve(samples)) await removeSamplesFrom(engine, previousSamples);
    }
    // A search model installed since the samples were built (npm run models:fetch): the few sample
    // passages take it at once, so the first library a technician tries searches by meaning too.
    const info = await engine.info();
    if (info.ok && info.value.modelToAdd && !info.value.modelMissing) {
      console.log(`Giving the sample library the search model ${info.value.modelToAdd} …`);
      const res = await engine.ingest({ paths: [], completeVectors: true });
      if (!res.ok) console.log(`The sample library stays keyword-only: ${res.error.message}`);
    }
  } finally {
    await engine.close();
  }
  if (previous === signature) return;
  // The engine reads this marker (native/library/layout.ts SAMPLE_MARKER_FILE): LibraryInfo.sample, and no new library inside the samples.
  fs.writeFileSync(marker, JSON.stringify({ signature, createdBy: 'npm start', samples }, null, 2));
}
