/** A subtitle file as a <track>: its name as the label, a language when the name carries one ("film.en.srt"). */

export interface SubtitleTrack {
  path: string;
  label: string;
  /** BCP 47 tag, when the name ends in `.<lang>.<ext>`. */
  language?: string;
}

const LANGUAGE = /\.([a-z]{2,3}(?:[-_][a-z0-9]{2,8})?)\.(?:srt|vtt|ass|ssa)$/i;

export function subtitleTrack(path: string): SubtitleTrack {
  const label = path.slice(path.lastIndexOf('/') + 1);
  const match = LANGUAGE.exec(label);
  const tag = match?.[1]?.replace('_', '-');
  if (!tag) return { path, label };
  try {
    return { path, label, language: Intl.getCanonicalLocales(tag)[0] };
  } catch {
    return { path, label };
  }
}
