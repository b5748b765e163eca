/**
 * Subtitle conversion to WebVTT (docs/api.md §10): SubRip (.srt) and SubStation Alpha (.ass/.ssa).
 * Lenient: blocks without a valid timing are left out rather than failing the whole file.
 */

const BR = /<br\s*[^>]*\/?>/gi;
const SRT_TIMING =
  /^\s*(\d{1,3}):(\d{1,2}):(\d{1,2})[,.](\d{1,3})\s*-->\s*(\d{1,3}):(\d{1,2}):(\d{1,2})[,.](\d{1,3})/;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Milliseconds → `HH:MM:SS.mmm`. */
export function vttTime(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(ms % 1000, 3)}`;
}

function toMs(h: string, m: string, s: string, frac: string, fracDigits = frac.length): number {
  const f = Number(frac) * 10 ** (3 - fracDigits);
  return Number(h) * 3_600_000 + Number(m) * 60_000 + Number(s) * 1000 + Math.round(f);
}

/** Cue text may not contain "-->" nor blank lines in WebVTT. */
function cueText(lines: string[]): string {
  return lines
    .map((l) => l.replaceAll('-->', '--&gt;'))
    .filter((l) => l.trim() !== '')
    .join('\n');
}

function normalise(text: string): string {
  return text.replace(/^\ufeff/, '').replace(/\r\n?/g, '\n');
}

export function srtToVtt(input: string): string {
  const text = normalise(input).replace(BR, '\n');
  const out: string[] = ['WEBVTT', ''];
  for (const block of text.split(/\n[ \t]*\n/)) {
    const lines = block.split('\n');
    while (lines.length && lines[0]!.trim() === '') lines.shift();
    if (lines.length === 0) continue;
    let id: string | undefined;
    if (!SRT_TIMING.test(lines[0]!) && lines.length > 1 && SRT_TIMING.test(lines[1]!))
      id = lines.shift()!.trim();
    const t = SRT_TIMING.exec(lines[0]!);
    if (!t) continue;
    const start = toMs(t[1]!, t[2]!, t[3]!, t[4]!);
    const end = toMs(t[5]!, t[6]!, t[7]!, t[8]!);
    if (id !== undefined && /^\d+$/.test(id)) out.push(id);
    out.push(`${vttTime(start)} --> ${vttTime(end)}`);
    const body = cueText(lines.slice(1));
    if (body) out.push(body);
    out.push('');
  }
  return out.join('\n') + '\n';
}

const ASS_TIME = /^\s*(\d+):(\d{1,2}):(\d{1,2})[.:](\d{1,3})\s*$/;

/** SubStation Alpha / Advanced SSA: the Dialogue lines of [Events], override tags removed. */
export function assToVtt(input: string): string {
  const lines = normalise(input).split('\n');
  let inEvents = false;
  let format = ['layer', 'start', 'end', 'style', 'name', 'marginl', 'marginr', 'marginv', 'effect', 'text'];
  const cues: { start: number; end: number; text: string }[] = [];
  for (const line of lines) {
    const section = /^\s*\[(.+)\]\s*$/.exec(line);
    if (section) {
      inEvents = section[1]!.trim().toLowerCase() === 'events';
      continue;
    }
    if (!inEvents) continue;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1);
    if (key === 'format') {
      format = value.split(',').map((f) => f.trim().toLowerCase());
      continue;
    }
    if (key !== 'dialogue') continue;
    const parts = value.split(',');
    if (parts.length < format.length) continue;
    const fields = [...parts.slice(0, format.length - 1), parts.slice(format.length - 1).join(',')];
    const get = (name: string) => fields[format.indexOf(name)] ?? '';
    const s = ASS_TIME.exec(get('start'));
    const e = ASS_TIME.exec(get('end'));
    if (!s || !e) continue;
    const text = get('text')
      .replace(/\{[^}]*\}/g, '')
      .replace(/\\[Nn]/g, '\n')
      .replace(/\\h/g, ' ');
    cues.push({ start: toMs(s[1]!, s[2]!, s[3]!, s[4]!), end: toMs(e[1]!, e[2]!, e[3]!, e[4]!), text });
  }
  cues.sort((a, b) => a.start - b.start);
  const out: string[] = ['WEBVTT', ''];
  for (const c of cues) {
    out.push(`${vttTime(c.start)} --> ${vttTime(c.end)}`);
    const body = cueText(c.text.split('\n'));
    if (body) out.push(body);
    out.push('');
  }
  return out.join('\n') + '\n';
}

export type SubtitleKind = 'srt' | 'ass' | 'vtt';

/** docs/api.md §10: only these suffixes are subtitles (case-insensitively); conversion by lowercase suffix. */
export function subtitleKind(name: string): SubtitleKind | 'passthrough' | null {
  const lower = name.toLowerCase();
  if (!/\.(vtt|srt|ass|ssa)$/.test(lower)) return null;
  if (name.endsWith('.srt')) return 'srt';
  if (name.endsWith('.ass') || name.endsWith('.ssa')) return 'ass';
  if (name.endsWith('.vtt')) return 'vtt';
  return 'passthrough';
}
