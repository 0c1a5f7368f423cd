/** The Electron executable, if one is really on disk, else null (see find-electron.js). */
export function findElectron(): string | null;
