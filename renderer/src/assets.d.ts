/** Vite's `?url` imports: the built file's URL (used for pdf.js's worker, bundled with the app). */
declare module '*?url' {
  const url: string;
  export default url;
}
