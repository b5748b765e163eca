/**
 * WebDAV's state follows what any door does to a file (issue 19): the web API, WebDAV itself,
 * jobs — everything that fires the file events (docs/api.md §16.4). Dead properties go along with
 * a move and are copied with a copy; a delete (to the trash or for good) drops them. Locks stay
 * with the place they were taken on (RFC 4918 section 7.7): those of a moved tree and of a
 * replaced destination end, so a new item at either place never inherits another's lock or
 * properties. Items a delete leaves behind (the caller's rules hide them: S7) keep theirs, and a
 * copy's destination gets none for what it left out.
 * Registered whether WebDAV is served or not, so that turning it on later finds no
 * stale state.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../events/index.js';
import { stillPresent } from '../../fs/ops.js';
import type { FileService } from '../../fs/service.js';
import type { DavRepository } from './repository.js';

export function followFileEvents(deps: { events: EventBus; files: Pick<FileService, 'storageKey'>; repo: DavRepository; log: FastifyBaseLogger }): () => void {
  const { files, repo } = deps;
  return deps.events.on(async (phase, event, ctx) => {
    if (phase !== 'after') return;
    try {
      if (event === 'delete') {
        const key = await files.storageKey(ctx.file);
        // A delete leaves what the caller's rules deny (S7): the state of what stays, stays.
        if (!(await stillPresent(ctx.file))) await repo.dropTree(key);
        else for (const k of await repo.keysIn(key)) if (!(await stillPresent(ctx.file, k.slice(key.length)))) await repo.dropTree(k);
      } else if ((event === 'rename' || event === 'copy') && ctx.destination) {
        const from = await files.storageKey(ctx.file);
        const to = await files.storageKey(ctx.destination);
        await repo.carryProps(from, to, event === 'rename' ? 'move' : 'copy');
        await repo.dropLocks(to);
        if (event === 'rename') await repo.dropLocks(from);
        // Nothing waits where nothing arrived (a member the rules kept back) for a file made there later.
        for (const k of await repo.keysIn(to)) if (!(await stillPresent(ctx.destination, k.slice(to.length)))) await repo.dropTree(k);
      }
    } catch (err) {
      deps.log.warn({ err, event }, 'WebDAV state of a changed item could not be updated');
    }
  });
}
