/**
 * Subtitle discovery for a video's file answer (docs/api.md §7.3): siblings named like the
 * video, and any subtitle in a sibling `subs`/`subtitles` folder (one level of sub-folders named
 * like the video). Folder reads only; denied entries and escaping links are left out.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { isDenied, type RuleSubject } from './rules.js';
import { childVirtual, resolveInArea, type ScopedPath } from './resolve.js';

const SUB_EXT = /\.(vtt|srt|ass|ssa)$/i;
const SUBS_DIR = /^sub(s|titles)$/i;

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

async function isFolder(area: { root: string }, virtual: string): Promise<ScopedPath | null> {
  try {
    const p = await resolveInArea(area, { path: virtual, trailingSlash: false });
    return p.exists && p.stat?.isDirectory() ? p : null;
  } catch {
    return null;
  }
}

async function isFile(area: { root: string }, virtual: string): Promise<boolean> {
  try {
    const p = await resolveInArea(area, { path: virtual, trailingSlash: false });
    return p.exists && !!p.stat?.isFile();
  } catch {
    return false;
  }
}

export async function findSubtitles(video: ScopedPath, user: RuleSubject, globalRules: readonly Rule[]): Promise<string[]> {
  const area = { root: video.root };
  const folderVirtual = path.posix.dirname(video.virtual);
  const folderReal = path.dirname(video.entry);
  const name = path.posix.basename(video.virtual);
  const dot = name.lastIndexOf('.');
  const base = dot < 0 ? name : name.slice(0, dot);
  const out: string[] = [];
  const add = async (virtual: string) => {
    if (!isDenied(user, virtual, globalRules) && (await isFile(area, virtual))) out.push(virtual);
  };
  const siblings = await names(folderReal);
  for (const n of siblings) {
    if (n.startsWith(base) && SUB_EXT.test(n)) await add(childVirtual(folderVirtual, n));
  }
  for (const n of siblings) {
    if (!SUBS_DIR.test(n)) continue;
    const subsVirtual = childVirtual(folderVirtual, n);
    if (isDenied(user, subsVirtual, globalRules)) continue;
    const subs = await isFolder(area, subsVirtual);
    if (!subs) continue;
    for (const m of await names(subs.real)) {
      const v = childVirtual(subsVirtual, m);
      if (SUB_EXT.test(m)) await add(v);
      else if (m.startsWith(base) && !isDenied(user, v, globalRules)) {
        const inner = await isFolder(area, v);
        if (!inner) continue;
        for (const k of await names(inner.real)) if (SUB_EXT.test(k)) await add(childVirtual(v, k));
      }
    }
  }
  return out;
}
