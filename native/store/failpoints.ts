/**
 * Test-only crash simulation: when set, LibraryStore.replaceFiles (attachVectors, adoptEmbedder,
 * attachSwitchVectors: at afterAdd; completeSwitch: before and after its commit) throws at that point
 * and skips its clean-up, leaving the library as a killed process would.
 */
export const failpoints: { afterAdd: boolean; afterCommit: boolean } = { afterAdd: false, afterCommit: false };
