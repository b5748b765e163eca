import { describe, expect, it } from 'vitest';
import { refusalKey, rememberSent, SENT_KEPT, sentFiles } from './uploadShareRules';

function memory(): Pick<Storage, 'getItem' | 'setItem'> {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
}

describe('refusalKey (docs/api.md §23.3)', () => {
  it('names the limit from Coffer-Limit first, then the status', () => {
    expect(refusalKey(413, 'file-size')).toBe('tooLarge');
    expect(refusalKey(413, 'bytes')).toBe('noRoom');
    expect(refusalKey(403, 'files')).toBe('full');
    expect(refusalKey(507, null)).toBe('diskFull');
    expect(refusalKey(429, null)).toBe('tooMany');
    expect(refusalKey(404, null)).toBe('gone');
    expect(refusalKey(500, null)).toBe('failed');
  });
});

describe('files sent from this browser', () => {
  it('are kept per share, newest first, at most SENT_KEPT', () => {
    const s = memory();
    rememberSent('a', { name: 'one.txt', size: 1, at: 1 }, s);
    rememberSent('a', { name: 'two.txt', size: 2, at: 2 }, s);
    rememberSent('b', { name: 'other.txt', size: 3, at: 3 }, s);
    expect(sentFiles('a', s).map((f) => f.name)).toEqual(['two.txt', 'one.txt']);
    for (let i = 0; i < SENT_KEPT + 5; i++) rememberSent('c', { name: `${i}`, size: i, at: i }, s);
    expect(sentFiles('c', s)).toHaveLength(SENT_KEPT);
  });

  it('survive garbage in storage', () => {
    const s = memory();
    s.setItem('coffer.uploadShare.x', '{not json');
    expect(sentFiles('x', s)).toEqual([]);
    s.setItem('coffer.uploadShare.x', JSON.stringify([{ name: 1 }, { name: 'ok', size: 1, at: 1 }]));
    expect(sentFiles('x', s)).toEqual([{ name: 'ok', size: 1, at: 1 }]);
  });
});
