export * from './errors.js';
export type * from './document.js';
export type * from './api.js';
export type * from './answer.js';
export type * from './packs.js';
export type * from './events.js';
export * from './methods.js';
export { answerCheckLine, embedderModelLine, modelNameOf, waitedText } from './messages.js';
export { codeDetail, spokenCode } from './codes.js';
