import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { followScroll, forgetPlaces, recall, remember } from './scrollMemory';

describe('scroll memory', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    forgetPlaces();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('remembers position, selection and focus per history entry, merging changes', () => {
    remember('k1', { y: 400 });
    remember('k1', { selected: ['/a/x.txt'], focus: '/a/x.txt' });
    remember('k2', { y: 10 });
    expect(recall('k1')).toEqual({ y: 400, selected: ['/a/x.txt'], focus: '/a/x.txt' });
    expect(recall('k2')).toEqual({ y: 10, selected: [], focus: null });
    expect(recall('k3')).toBeUndefined();
  });

  it('keeps them in session storage', () => {
    remember('k1', { y: 123 });
    vi.advanceTimersByTime(300);
    expect(JSON.parse(sessionStorage.getItem('coffer.files.places') ?? '[]')).toEqual([
      ['k1', { y: 123, selected: [], focus: null }],
    ]);
  });

  it('drops the oldest entries beyond 100', () => {
    for (let i = 0; i < 105; i++) remember(`k${i}`, { y: i });
    expect(recall('k4')).toBeUndefined();
    expect(recall('k5')).toEqual({ y: 5, selected: [], focus: null });
    expect(recall('k104')).toEqual({ y: 104, selected: [], focus: null });
  });

  it('follows the window scrolling at most every 100 ms (docs/client.md §9) and keeps the last position when stopped', () => {
    const scrollTo = (y: number) => {
      Object.defineProperty(window, 'scrollY', { value: y, configurable: true });
      window.dispatchEvent(new Event('scroll'));
    };
    const stop = followScroll('k1');
    scrollTo(10);
    expect(recall('k1')?.y).toBe(10);
    scrollTo(20);
    scrollTo(30);
    vi.advanceTimersByTime(99);
    expect(recall('k1')?.y).toBe(10);
    vi.advanceTimersByTime(1);
    expect(recall('k1')?.y).toBe(30);
    scrollTo(40);
    scrollTo(50);
    stop();
    expect(recall('k1')?.y).toBe(50);
    scrollTo(60);
    vi.advanceTimersByTime(200);
    expect(recall('k1')?.y).toBe(50);
  });
});
