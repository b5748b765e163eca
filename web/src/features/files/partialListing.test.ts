import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resource, ResourceItem } from '../../api/resources';
import { useSession } from '../../stores/session';
import { clearPartial, FIRST_ROWS, partialPublisher, usePartialListing } from './partialListing';

const head = (by = 'name'): Resource => ({
  path: '/big/',
  name: 'big',
  size: 0,
  modified: '',
  isDir: true,
  type: '',
  sorting: { by, asc: false },
  items: [],
});
const items = (n: number): ResourceItem[] =>
  Array.from({ length: n }, (_, i) => ({ path: `/big/${i}`, name: String(i), size: 0, modified: '', isDir: false, type: '' }));

describe('partialPublisher', () => {
  const loads: { failed: () => void }[] = [];
  afterEach(() => act(() => loads.splice(0).forEach((l) => l.failed())));

  it('shows a name-ordered folder from the first screenful on, again each time the count doubled', () => {
    const seen = renderHook(() => usePartialListing('/big/'));
    const load = partialPublisher('/big/');
    loads.push(load);
    act(() => load.onItems(head(), items(FIRST_ROWS - 1)));
    expect(seen.result.current).toBeNull();
    act(() => load.onItems(head(), items(FIRST_ROWS)));
    expect(seen.result.current?.items).toHaveLength(FIRST_ROWS);
    expect(seen.result.current).toMatchObject({ name: 'big', sorting: { by: 'name' } });
    act(() => load.onItems(head(), items(2 * FIRST_ROWS - 1)));
    expect(seen.result.current?.items).toHaveLength(FIRST_ROWS);
    act(() => load.onItems(head(), items(2 * FIRST_ROWS)));
    expect(seen.result.current?.items).toHaveLength(2 * FIRST_ROWS);
    act(() => load.failed());
    expect(seen.result.current).toBeNull();
  });

  it('a load that succeeded leaves its items until the next load of any folder starts', () => {
    const seen = renderHook(() => usePartialListing('/big/'));
    const load = partialPublisher('/big/');
    loads.push(load);
    act(() => load.onItems(head(), items(FIRST_ROWS)));
    expect(seen.result.current?.items).toHaveLength(FIRST_ROWS);
    act(() => void loads.push(partialPublisher('/other/')));
    expect(seen.result.current).toBeNull();
  });

  it('shows nothing early for other orders (rows would move when the rest came in) or other paths', () => {
    const seen = renderHook(() => usePartialListing('/big/'));
    const bySize = partialPublisher('/big/');
    const elsewhere = partialPublisher('/other/');
    loads.push(bySize, elsewhere);
    act(() => bySize.onItems(head('size'), items(10 * FIRST_ROWS)));
    act(() => bySize.onItems({ ...head(), sorting: undefined }, items(20 * FIRST_ROWS)));
    act(() => elsewhere.onItems(head(), items(10 * FIRST_ROWS)));
    expect(seen.result.current).toBeNull();
  });

  it('a failed load does not remove what a newer load of the same folder shows', () => {
    const seen = renderHook(() => usePartialListing('/big/'));
    const older = partialPublisher('/big/');
    const newer = partialPublisher('/big/');
    loads.push(older, newer);
    act(() => older.onItems(head(), items(FIRST_ROWS)));
    act(() => newer.onItems(head(), items(FIRST_ROWS + 1)));
    act(() => older.failed());
    expect(seen.result.current?.items).toHaveLength(FIRST_ROWS + 1);
  });

  it("is never shown to another user, and is dropped when the session ends", () => {
    act(() => useSession.setState({ token: 't1', user: { id: 1 } as never }));
    const seen = renderHook(() => usePartialListing('/big/'));
    const load = partialPublisher('/big/');
    loads.push(load);
    act(() => load.onItems(head(), items(FIRST_ROWS)));
    expect(seen.result.current?.items).toHaveLength(FIRST_ROWS);
    act(() => useSession.setState({ token: 't2', user: { id: 2 } as never }));
    expect(seen.result.current).toBeNull();
    act(() => useSession.setState({ token: 't1', user: { id: 1 } as never }));
    expect(seen.result.current).toBeNull(); // dropped, not just hidden
    act(() => load.onItems(head(), items(4 * FIRST_ROWS)));
    act(() => useSession.setState({ token: null, user: null }));
    act(() => useSession.setState({ token: 't1', user: { id: 1 } as never }));
    expect(seen.result.current).toBeNull();
  });

  it('clearPartial drops what is shown (the whole answer is on screen)', () => {
    const seen = renderHook(() => usePartialListing('/big/'));
    const load = partialPublisher('/big/');
    loads.push(load);
    act(() => load.onItems(head(), items(FIRST_ROWS)));
    act(() => clearPartial());
    expect(seen.result.current).toBeNull();
  });
});
