import type { Job } from '@coffer/protocol';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryKeys } from '../../api/queryKeys';
import { setLanguage } from '../../i18n';
import { JobsPanel } from './JobsPanel';

function job(over: Partial<Job>): Job {
  return {
    id: 'a'.repeat(32), kind: 'extract', userId: 1, username: 'ann', inputs: { source: '/in/a.zip', destination: '/out/' },
    state: 'running', progress: { done: 0, total: 0 }, error: null, result: null,
    created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z', finished: null, ...over,
  };
}

/** A server answering GET /api/jobs with `jobs`, recording the other calls. */
function serve(jobs: Job[]) {
  const calls: string[] = [];
  vi.stubGlobal('fetch', vi.fn((url: string, init?: RequestInit) => {
    const path = new URL(url, 'http://x').pathname;
    calls.push(`${init?.method ?? 'GET'} ${path}`);
    if ((init?.method ?? 'GET') === 'GET') return Promise.resolve(new Response(JSON.stringify(jobs), { headers: { 'Content-Type': 'application/json' } }));
    if (init?.method === 'POST') return Promise.resolve(new Response(JSON.stringify({ ...jobs[0], state: 'cancelled' })));
    return Promise.resolve(new Response(null, { status: 204 }));
  }));
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>
        <JobsPanel />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return calls;
}

beforeAll(async () => {
  await setLanguage('en');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the jobs panel', () => {
  it('reloads the listings when a job ends, also one already done at its first answer; not for jobs ended before', async () => {
    let answer: Job[] = [job({ id: 'c'.repeat(32), state: 'done' })];
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response(JSON.stringify(answer), { headers: { 'Content-Type': 'application/json' } }))));
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const listingReloads = () => invalidate.mock.calls.filter(([f]) => JSON.stringify(f?.queryKey) === JSON.stringify(queryKeys.resources())).length;
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <JobsPanel />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    await screen.findByRole('heading', { name: /Jobs/ });
    expect(listingReloads()).toBe(0);
    // A quick extraction: the first answer that holds it says done.
    answer = [...answer, job({ id: 'd'.repeat(32), state: 'done' })];
    await client.invalidateQueries({ queryKey: queryKeys.jobs() });
    await waitFor(() => expect(listingReloads()).toBe(1));
  });

  it('shows nothing without jobs', async () => {
    const calls = serve([]);
    await waitFor(() => expect(calls).toContain('GET /api/jobs'));
    expect(screen.queryByRole('heading', { name: /Jobs/ })).toBeNull();
  });

  it('a running job: its bar and a cancel that posts to the server', async () => {
    const id = 'b'.repeat(32);
    const calls = serve([job({ id, progress: { done: 25, total: 100 } })]);
    const bar = await screen.findByRole('progressbar', { name: 'Extract a.zip' });
    expect(bar.getAttribute('aria-valuenow')).toBe('25');
    expect(screen.getByRole('heading').textContent).toContain('1 running');
    // While a job runs the panel cannot be closed.
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel “Extract a.zip”' }));
    await waitFor(() => expect(calls).toContain(`POST /api/jobs/${id}/cancel`));
  });

  it('ended jobs: a link to what was made, the reason of a failure; closing forgets them', async () => {
    const done = job({ id: 'c'.repeat(32), state: 'done', result: { path: '/out/a/' }, progress: { done: 9, total: 9 } });
    const failed = job({ id: 'd'.repeat(32), state: 'failed', error: 'the archive holds more than 100000 entries' });
    const calls = serve([done, failed]);
    const open = await screen.findByRole('link', { name: 'Open' });
    expect(open.getAttribute('href')).toBe('/files/out/a/');
    expect(screen.getByRole('alert').textContent).toBe('Failed: the archive holds more than 100000 entries');
    expect(within(screen.getByRole('list')).queryByRole('progressbar')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(calls).toEqual(expect.arrayContaining([`DELETE /api/jobs/${done.id}`, `DELETE /api/jobs/${failed.id}`])));
  });
});
