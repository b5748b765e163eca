/**
 * Reads a resource answer (GET /api/resources) as it arrives. A folder's `items` are handed out in
 * batches while the rest of the answer is still on its way, so a listing of 100,000 entries can
 * show its first rows long before its last bytes are in (the server sends the items in the
 * listing's order, docs/api.md §7.2). Anything that is not `{…, "items": [ {…}, … ], …}` — a file, or
 * fields in another order — is simply read whole. The result is what `JSON.parse` of the whole
 * answer gives.
 */
import { ApiError } from './errors';

/**
 * The answer's shape as the reader sees it: a JSON object, with an `items` array when it is a
 * folder. The API's types (resources.ts) fill it in; this module knows no more of them.
 */
export interface Listed {
  items?: unknown[];
}

/** One entry of `R`'s `items`. */
export type ItemOf<R extends Listed> = NonNullable<R['items']>[number];

/** Called after each piece that completed items: the folder's own fields, and every item so far. */
export type ItemsListener<R extends Listed> = (head: R, items: readonly ItemOf<R>[]) => void;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Give up looking for `items` after this much text: the answer is then read whole. */
const HEAD_LIMIT = 64 * 1024;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index just after the string starting at `from` (its opening quote); -1 when it is not complete yet. */
function stringEnd(text: string, from: number): number {
  let at = from + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

function skipSpace(text: string, from: number): number {
  while (from < text.length && isSpace(text.charCodeAt(from))) from++;
  return from;
}

/** Index just after the JSON value starting at `from`; -1 when it is not complete yet. */
function valueEnd(text: string, from: number): number {
  let depth = 0;
  let at = from;
  while (at < text.length) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) {
      at = stringEnd(text, at);
      if (at < 0) return -1;
      if (depth === 0) return at;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return at + 1;
      if (depth < 0) return at; // the end of the enclosing object: a bare literal ended here
    } else if (depth === 0 && (c === COMMA || isSpace(c))) return at;
    at++;
  }
  return -1;
}

/**
 * Where the items of `{"key": value, …, "items": [` begin (just after the `[`); `null` when the
 * answer has no such array (read it whole), -1 when more text is needed to tell.
 */
export function itemsStart(text: string): number | null {
  let at = skipSpace(text, 0);
  if (at >= text.length) return -1;
  if (text.charCodeAt(at) !== OPEN_OBJECT) return null;
  at++;
  for (;;) {
    at = skipSpace(text, at);
    if (at >= text.length) return -1;
    if (text.charCodeAt(at) !== QUOTE) return null; // `}` (no items) or not JSON we expect
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return -1;
    const key = text.slice(at, keyEnd);
    at = skipSpace(text, keyEnd);
    if (at >= text.length) return -1;
    if (text.charCodeAt(at) !== COLON) return null;
    at = skipSpace(text, at + 1);
    if (at >= text.length) return -1;
    if (key === '"items"') return text.charCodeAt(at) === OPEN_ARRAY ? at + 1 : null;
    const end = valueEnd(text, at);
    if (end < 0) return -1;
    at = skipSpace(text, end);
    if (at >= text.length) return -1;
    if (text.charCodeAt(at) !== COMMA) return null;
    at++;
  }
}

/**
 * Where one item ends and the next begins. Inside a JSON string a `"` is always escaped, so this
 * text only occurs between values; if it is not between two items (an item holding an array of
 * objects), the batch cut there does not parse, and the answer is read whole instead.
 */
const BETWEEN_ITEMS = '},{"';

/** Places a piece's items are cut at before giving up streaming. */
const CUT_ATTEMPTS = 8;

/** Reads an answer's text piece by piece; `finish` gives the parsed whole. */
export class ListingReader<R extends Listed> {
  /** Text not parsed yet: from the start, or (once streaming) from the first item not parsed. */
  private text = '';
  /** Text before the items (ending in `"items":[`), once found; `null` while looking. */
  private head: string | null = null;
  private headFields: R | null = null;
  /** Read whole: no items array to stream, or one cut that did not parse. */
  private whole = false;
  private readonly items: ItemOf<R>[] = [];

  constructor(private readonly onItems?: ItemsListener<R>) {}

  push(chunk: string): void {
    if (chunk === '') return;
    this.text += chunk;
    if (this.whole) return;
    if (this.head === null) {
      const start = itemsStart(this.text);
      if (start === null || (start < 0 && this.text.length > HEAD_LIMIT)) {
        this.whole = true;
        return;
      }
      if (start < 0) return;
      this.head = this.text.slice(0, start);
      this.headFields = JSON.parse(`${this.head}]}`) as R;
      this.text = this.text.slice(start);
    }
    this.takeItems();
  }

  /**
   * Parses the complete items at the start of the text and keeps the rest. A file name can hold
   * `},{` and so put the cut text inside a string (the batch then does not parse): the cut is tried
   * at a few earlier places before the answer is read whole.
   */
  private takeItems(): void {
    let cut = this.text.length;
    for (let attempt = 0; attempt < CUT_ATTEMPTS; attempt++) {
      cut = this.text.lastIndexOf(BETWEEN_ITEMS, cut - 1);
      if (cut < 0) return;
      let parsed: ItemOf<R>[];
      try {
        parsed = JSON.parse(`[${this.text.slice(0, cut + 1)}]`) as ItemOf<R>[];
      } catch {
        continue;
      }
      for (const item of parsed) this.items.push(item);
      this.text = this.text.slice(cut + 2);
      this.onItems?.(this.headFields!, this.items);
      return;
    }
    this.whole = true;
  }

  /** The whole answer, parsed; throws like `JSON.parse` when it is not JSON. */
  finish(): R {
    if (this.head === null) return JSON.parse(this.text) as R;
    // The head, then the items not handed out yet and whatever follows them.
    const rest = JSON.parse(this.head + this.text) as R;
    if (this.items.length > 0) rest.items = this.items.concat(rest.items ?? []);
    return rest;
  }
}

/** The body of `res`, read as it arrives (see the module's comment). */
export async function readResource<R extends Listed>(res: Response, onItems?: ItemsListener<R>): Promise<R> {
  const reader = new ListingReader<R>(onItems);
  if (!res.body) {
    reader.push(await res.text());
    return reader.finish();
  }
  const decoder = new TextDecoder();
  const source = res.body.getReader();
  for (;;) {
    // Only the transfer is "no connection"; an answer that is not JSON throws like JSON.parse.
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await source.read();
    } catch (err) {
      const canceled = err instanceof DOMException && err.name === 'AbortError';
      throw new ApiError(0, '000 No connection', canceled);
    }
    if (next.done) break;
    reader.push(decoder.decode(next.value, { stream: true }));
  }
  reader.push(decoder.decode());
  return reader.finish();
}
