import { describe, expect, it } from 'vitest';
import { freshCursor, MAX_HISTORY, remember, step } from './history';

describe('remember', () => {
  it('appends, without repeating the newest entry', () => {
    expect(remember(['ls'], 'ls -l')).toEqual(['ls', 'ls -l']);
    expect(remember(['ls', 'ls -l'], 'ls -l')).toEqual(['ls', 'ls -l']);
    expect(remember(['ls', 'ls -l'], 'ls')).toEqual(['ls', 'ls -l', 'ls']);
  });

  it(`keeps the newest ${MAX_HISTORY}`, () => {
    const long = Array.from({ length: MAX_HISTORY }, (_, i) => `c${i}`);
    const next = remember(long, 'new');
    expect(next).toHaveLength(MAX_HISTORY);
    expect(next[0]).toBe('c1');
    expect(next.at(-1)).toBe('new');
  });
});

describe('step', () => {
  const history = ['one', 'two', 'three'];

  it('walks up to the oldest and stops there', () => {
    let cursor = freshCursor(history);
    const seen: string[] = [];
    for (;;) {
      const r = step(history, cursor, '', -1);
      if (!r) break;
      cursor = r.cursor;
      seen.push(r.value);
    }
    expect(seen).toEqual(['three', 'two', 'one']);
    expect(cursor.index).toBe(0);
  });

  it('gives back the line being typed when walking down past the newest', () => {
    const up = step(history, freshCursor(history), 'ech', -1);
    expect(up?.value).toBe('three');
    const down = step(history, up!.cursor, 'three', 1);
    expect(down?.value).toBe('ech');
    expect(down?.cursor.index).toBe(3);
    expect(step(history, down!.cursor, 'ech', 1)).toBeNull();
  });

  it('does nothing with an empty history', () => {
    expect(step([], freshCursor([]), 'x', -1)).toBeNull();
    expect(step([], freshCursor([]), 'x', 1)).toBeNull();
  });

  it('copes with a cursor left past a history that was cleared meanwhile', () => {
    expect(step(['a'], { index: 5, draft: '' }, 'typed', -1)).toEqual({
      cursor: { index: 0, draft: 'typed' },
      value: 'a',
    });
  });
});
