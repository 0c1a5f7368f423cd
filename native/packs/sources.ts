/**
 * Installed manual packs as search sources next to the local library: each active pack's library is
 * opened read-only with its own fault-code index; results of several sources are merged here.
 */
import path from 'node:path';
import type { CodeLookupResponse, SearchHit } from '../contract/api.js';
import type { CodeRecord } from '../contract/document.js';
import { CodeIndex } from '../fault-codes/index.js';
import type { CodeScheme } from '../fault-codes/schemes.js';
import { readJson } from '../store/atomic-json.js';
import { LibraryStore } from '../store/library-store.js';
import { fuseRrf, RRF_K } from '../search/rrf.js';
import { LOCAL_ID } from './format.js';
import { installedManifest, readRegistry, versionDir } from './install.js';

export interface PackSource {
  /** Pack id. */
  pack: string;
  version: string;
  unverified: boolean;
  /** The pack's library folder. */
  dir: string;
  store: LibraryStore;
  codes: CodeIndex;
  /** Embedder the pack's vectors were made with (null: keyword-only). */
  embedderId: string | null;
}

/**
 * Opens every active manual pack. A pack whose embedder is not the engine's is opened keyword-only
 * (import refuses such packs; this only guards a library edited by hand).
 */
/**
 * Opens every active manual pack read-only. A pack that cannot be opened (damaged on disk) is
 * skipped and reported through `onSkip`, so the site's other manuals keep answering.
 */
export async function openPackSources(
  libraryDir: string,
  embedder: { id: string; dims: number } | null,
  onSkip: (pack: string, reason: string) => void = () => {},
): Promise<PackSource[]> {
  const out: PackSource[] = [];
  for (const entry of readRegistry(libraryDir)) {
    if (entry.kind !== 'manuals') continue;
    try {
      const root = versionDir(libraryDir, entry.id, entry.active);
      const m = installedManifest(libraryDir, entry.id, entry.active);
      const packEmb = m.library?.embedder ?? null;
      const same = packEmb !== null && embedder !== null && packEmb.id === embedder.id && packEmb.dims === embedder.dims;
      const dir = path.join(root, 'library');
      const store = await LibraryStore.open(dir, { embedder: same ? embedder : null, readOnly: true });
      const records: CodeRecord[] = await store.allCodes();
      const schemes = (await readJson(path.join(dir, 'code-schemes.json'))) as Record<string, CodeScheme[]> | undefined;
      const unique = new Map(Object.values(schemes ?? {}).flat().map((sc) => [JSON.stringify(sc), sc] as const));
      out.push({
        pack: entry.id,
        version: entry.active,
        unverified: entry.versions.find((v) => v.version === entry.active)?.unverified ?? true,
        dir,
        store,
        codes: new CodeIndex(records, [...unique.values()]),
        embedderId: same ? (packEmb?.id ?? null) : null,
      });
    } catch (err) {
      onSkip(
        entry.id,
        `Pack ${entry.id} ${entry.active} could not be opened (${err instanceof Error ? err.message : String(err)}); it is left out of search. Import the pack again, or roll it back.`,
      );
    }
  }
  return out;
}

export async function closePackSources(sources: PackSource[]): Promise<void> {
  for (const s of sources.splice(0)) await s.store.close();
}

/** Whether the filters let a source answer (`local` names the site's own library). */
export function sourceSelected(packs: string[] | undefined, id: string | null): boolean {
  if (!packs || packs.length === 0) return true;
  return packs.includes(id ?? LOCAL_ID);
}

/**
 * Merges passage lists of several sources. BM25 scores of different indexes are not comparable, so
 * lists are fused by rank (RRF); a single non-empty list is kept exactly as it came (scores included).
 */
export function fuseSourceHits(lists: { pack: string | null; hits: SearchHit[] }[], k: number): SearchHit[] {
  const tag = (h: SearchHit, pack: string | null): SearchHit => (pack === null ? h : { ...h, pack });
  const nonEmpty = lists.filter((l) => l.hits.length > 0);
  if (nonEmpty.length === 0) return [];
  if (nonEmpty.length === 1) {
    const only = nonEmpty[0] as (typeof nonEmpty)[number];
    return only.hits.slice(0, k).map((h) => tag(h, only.pack));
  }
  const byId = new Map<string, SearchHit>();
  const ranked = nonEmpty.map((l, i) =>
    l.hits.map((h, rank) => {
      const id = `${i}\u0000${h.chunkId}`;
      byId.set(id, tag(h, l.pack));
      return { id, score: l.hits.length - rank };
    }),
  );
  return fuseRrf(ranked, RRF_K)
    .slice(0, k)
    .map((r) => ({ ...(byId.get(r.id) as SearchHit), score: r.score }));
}

/** Merges code lookups of several sources: matches grouped by detected code, in source order. */
export function mergeCodeLookups(query: string, parts: { pack: string | null; res: CodeLookupResponse }[], ms: number): CodeLookupResponse {
  if (parts.length === 1 && parts[0]) {
    const { pack, res } = parts[0];
    return { ...res, matches: pack === null ? res.matches : res.matches.map((m) => ({ ...m, pack })), ms };
  }
  const detected = [...new Set(parts.flatMap((p) => p.res.detected))];
  const order = new Map(detected.map((d, i) => [d, i] as const));
  const matches = parts
    .flatMap((p) => p.res.matches.map((m) => (p.pack === null ? m : { ...m, pack: p.pack })))
    .map((m, i) => ({ m, i }))
    .sort((a, b) => (order.get(a.m.key) ?? 1e9) - (order.get(b.m.key) ?? 1e9) || a.i - b.i)
    .map((x) => x.m);
  const defined = new Set(matches.map((m) => m.key));
  const nearest: CodeLookupResponse['nearest'] = [];
  for (const p of parts) {
    for (const n of p.res.nearest) {
      if (defined.has(n.code) || nearest.some((x) => x.code === n.code && x.manual === n.manual)) continue;
      nearest.push(n);
    }
  }
  return { query, detected, matches, nearest: matches.length > 0 ? [] : nearest.slice(0, 5), ms };
}
