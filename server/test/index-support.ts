/** Probes of the file index through the API, for the index integration tests. */
import { expect } from 'vitest';
import type { TestServer } from './harness.js';

type Hit = { dir: boolean; path: string };
type Listing = { items: { name: string; folderSize?: number }[] };

/** The paths a search below `from` answers, in order. */
export async function search(srv: TestServer, token: string, query: string, from = '/'): Promise<string[]> {
  const res = await srv.fetch(`/api/search${from}?query=${encodeURIComponent(query)}`, { token });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l)
    .map((l) => (JSON.parse(l) as Hit).path);
}

/** The folder size a listing of `parent` gives its child `name`. */
export async function folderSize(srv: TestServer, token: string, parent: string, name: string): Promise<number | undefined> {
  const res = await srv.fetch(`/api/resources${parent}`, { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as Listing).items.find((i) => i.name === name)?.folderSize;
}

/** Polls `probe` until it returns true; fails after `ms`. Returns the time it took. */
export async function within(ms: number, probe: () => Promise<boolean> | boolean): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
