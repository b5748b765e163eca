import type { FolderUsage } from '@coffer/protocol';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setLanguage } from '../../i18n';
import { DiskUsageScreen } from './DiskUsageScreen';

const empty = { path: '/docs', size: 0, items: [], other: { count: 0, size: 0 } };

/** A server answering GET /api/sizes with `answer`; returns the paths asked for. */
function serve(answer: FolderUsage) {
  const asked: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      asked.push(new URL(url, 'http://x').pathname);
      return Promise.resolve(new Response(JSON.stringify(answer), { headers: { 'Content-Type': 'application/json' } }));
    }),
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>
        <DiskUsageScreen path="/docs" />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return asked;
}

beforeAll(async () => {
  await setLanguage('en');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the disk-usage screen', () => {
  it('says the index is still building, with its progress, and shows no sizes', async () => {
    const asked = serve({ status: 'building', percent: 42, ...empty });
    expect((await screen.findByText(/The file index is still being built \(42 %\)\./)).getAttribute('role')).toBe('status');
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.queryByText(/in this folder/)).toBeNull();
    expect(asked).toEqual(['/api/sizes/docs/']);
  });

  it('says the index is off', async () => {
    serve({ status: 'disabled', percent: 0, ...empty });
    expect((await screen.findByText('Disk usage needs the file index, which is turned off on this server.')).getAttribute('role')).toBe('status');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('lists the entries by size with their share, the smaller ones as one group, folders as links', async () => {
    serve({
      status: 'ready',
      percent: 100,
      path: '/docs',
      size: 1000,
      items: [
        { name: 'sub', isDir: true, isSymlink: false, type: '', size: 600 },
        { name: 'a.pdf', isDir: false, isSymlink: false, type: 'pdf', size: 300 },
      ],
      other: { count: 12, size: 100 },
    });
    const table = await screen.findByRole('table', { name: 'Contents by size' });
    const rows = table.querySelectorAll('tbody tr');
    expect([...rows].map((r) => r.textContent)).toEqual([
      expect.stringMatching(/^Folders: sub.*600 B.*60%$/),
      expect.stringMatching(/^Documents and text: a\.pdf.*300 B.*30%$/),
      expect.stringMatching(/^12 smaller items.*100 B.*10%$/),
    ]);
    expect(screen.getAllByRole('link', { name: 'sub' })[0]?.getAttribute('href')).toBe('/usage/docs/sub/');
    expect(screen.queryByRole('link', { name: 'a.pdf' })).toBeNull();
  });
});
