
describe('indexedSizeSource', () => {
  it('answers from the index when it holds the folder, and walks otherwise', async () => {
    const { indexedSizeSource } = await import('./size-source.js');
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = await mkdtemp(path.join(tmpdir(), 'coffer-src-'));
    await writeFile(path.join(dir, 'f'), Buffer.alloc(42));
    const ready = indexedSizeSource({ folderSizes: async () => ({ size: 1234, children: new Map() }) });
    const building = indexedSizeSource({ folderSizes: async () => null });
    expect(await ready(dir)).toBe(1234);
    expect(await building(dir)).toBe(42);
    await rm(dir, { recursive: true, force: true });
  });
});
