/**
 * An admonition that starts with its own label, English or Chinese, in Markdown emphasis or not,
 * followed by a colon (or alone): "Warning: …", "**Note:** …", "**WARNING: … freely.**", "注意：…".
 * The parsers keep such a line as the manual writes it; the chunker adds no label in front of it.
 */
export const WRITTEN_LABEL =
  /^(?:\*\*|__|\*|_)?(?:note|tip|hint|important|caution|warning|danger|attention|notice|注意|注|说明|备注|提示|技巧|重要|小心|警告|危险)(?:\*\*|__|\*|_)?\s*(?:[:：]|$)/i;
