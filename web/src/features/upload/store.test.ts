import { QueryClient } from '@tanstack/react-query';
import type { TokenUser } from '@coffer/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useSession } from '../../stores/session';
import { setUploadsLimit, useUploadsLimitStore } from '../../stores/uploadsLimit';
import type { UploadJob } from './plan';
import type { Transport } from './queue';

// Transfers that never finish on their own: the test sees how many the queue started.
const started: string[] = [];
vi.mock('./transport', () => ({
  createTransport: (): Transport => (job) => {
    started.push(job.name);
    return { done: new Promise<void>(() => undefined), abort: () => undefined };
  },
}));

const { abortUploads, enqueueUpload, uploadsLimit } = await import('./store');

const user = { id: 7, username: 'ann', perm: { delete: true } } as unknown as TokenUser;
const job = (name: string): UploadJob => ({ path: `/${name}`, name, file: null, size: 1, override: false });

describe('the upload queue and the profile’s uploadsLimit', () => {
  beforeEach(() => {
    localStorage.clear();
    started.length = 0;
    useUploadsLimitStore.setState({ byUser: {} });
    useSession.setState({ user });
  });
  afterEach(() => {
    abortUploads();
    useSession.setState({ user: null });
  });

  it('runs as many at once as the profile saved, 5 when nothing was chosen, 1 without a user', () => {
    expect(uploadsLimit()).toBe(5);
    setUploadsLimit(7, 2);
    expect(uploadsLimit()).toBe(2);
    useSession.setState({ user: null });
    expect(uploadsLimit()).toBe(1);
  });

  it('starts only the saved number and more as soon as the limit is raised, without a reload', () => {
    setUploadsLimit(7, 2);
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    enqueueUpload({ jobs: names.map(job), names }, '/', new QueryClient());
    expect(started).toEqual(['a', 'b']);
    setUploadsLimit(7, 4);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    // A lower limit starts nothing more; the running ones go on.
    setUploadsLimit(7, 1);
    expect(started).toHaveLength(4);
  });
});
