/** The search query language of docs/api.md §12: `case:`, `type:` filters, quoted or space-split terms. */

export interface SearchQuery {
  caseSensitive: boolean;
  /** `type:` words; an entry must satisfy at least one (none = no filter). */
  types: string[];
  /** Any term contained in the base name matches; empty = everything that passes the types. */
  terms: string[];
}

const TYPE_TOKEN = /type:(\w+)/g;

export function parseQuery(input: string): SearchQuery {
  let text = input;
  const caseSensitive = text.includes('case:sensitive');
  text = text.replaceAll('case:sensitive', '').replaceAll('case:insensitive', '');
  const types: string[] = [];
  text = text.replace(TYPE_TOKEN, (_m, word: string) => {
    types.push(word);
    return '';
  });
  text = text.trim();
  if (!caseSensitive) text = text.toLowerCase();
  let terms: string[];
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) terms = [text.slice(1, -1)];
  else terms = text.split(' ').filter((t) => t !== '');
  return { caseSensitive, types, terms };
}

const MEDIA: Record<string, string> = { image: 'image', audio: 'audio', music: 'audio', video: 'video' };

/** The extension with its dot, last dot only ("" when none), as in listings. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

/**
 * Compiles a parsed query into a predicate on an entry's base name. `mimeOf` maps a name to the
 * MIME type of its extension (case-insensitive lookup), '' when unknown.
 */
export function matcher(q: SearchQuery, mimeOf: (name: string) => string): (name: string) => boolean {
  const typeChecks = q.types.map((word) => {
    const media = MEDIA[word];
    if (media) return (name: string) => mimeOf(name).toLowerCase().startsWith(media);
    const ext = '.' + word;
    return (name: string) => extensionOf(name) === ext;
  });
  const terms = q.terms;
  return (name: string) => {
    if (typeChecks.length > 0 && !typeChecks.some((check) => check(name))) return false;
    if (terms.length === 0) return true;
    const hay = q.caseSensitive ? name : name.toLowerCase();
    return terms.some((t) => hay.includes(t));
  };
}
