/** Input limits the engine enforces (native/server/schemas.ts MAX_TEXT); the boxes stop there and say so. */
export const MAX_QUERY_CHARS = 2000;
