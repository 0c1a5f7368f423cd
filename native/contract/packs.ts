/** Manual packs and model packs (USB distribution). Types only. */
import type { EngineErrorData } from './errors.js';

export interface PackSigner {
  /** sha256 of the public key (hex), shown to the user to compare with the publisher's. */
  fingerprint: string;
  /** True when the key is in the library's trusted-keys folder. */
  trusted: boolean;
}

export interface PackManualSummary {
  title: string;
  revision: string | null;
  language: string | null;
  equipment: string[];
  files: number;
}

export interface PackInfo {
  id: string;
  name: string;
  version: string;
  publisher: string;
  created: string;
  kind: 'manuals' | 'models';
  signer: PackSigner | null;
  /** Imported with --allow-unsigned (or untrusted key allowed): shown as such everywhere. */
  unverified: boolean;
  manuals: PackManualSummary[];
  /** Installed versions kept for rollback, newest first (the active one included). */
  versions: string[];
  active: string;
  /** Set when the installed pack could not be opened: it is left out of search until fixed. */
  problem?: string;
}

export interface PackVerifyReport {
  ok: boolean;
  pack: Omit<PackInfo, 'versions' | 'active' | 'unverified'>;
  signature: 'valid' | 'invalid' | 'missing';
  /** Present when a library was given: whether the signer is trusted there. */
  trusted: boolean | null;
  checksums: { checked: number; failed: string[] };
  /** Present when a library was given: whether its embedding model matches the pack's. */
  embedderCompatible: boolean | null;
  problems: string[];
  /** The decisive problem as error data (code and message), when `ok` is false. */
  error?: EngineErrorData;
}

export interface PackProgress {
  phase: 'read' | 'verify' | 'stage' | 'install' | 'build';
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
}

export interface PackImportRequest {
  file: string;
  allowUnsigned?: boolean;
}

/** The id that names the site's own library in search filters (SearchFilters.packs, SourceRequest.pack); no pack may use it. */
export const LOCAL_ID = 'local';
