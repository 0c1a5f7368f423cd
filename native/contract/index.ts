export * from './errors.js';
export type * from './document.js';
export type * from './api.js';
