/**
 * An archive's preview (docs/client.md §2 "Preview"): its entries as a tree, read from the server
 * as they come (docs/api.md §18 E13), folders collapsed until opened, each file with its size,
 * date and a download of that one entry. Entry names are rendered as text only.
 */
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { archiveEntryUrl, listArchiveEntries } from '../../api/archive';
import type { Resource } from '../../api/resources';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { useFormat } from '../../i18n/useFormat';
import { triggerDownload } from '../../lib/download';
import { addEntry, emptyTree, sortedChildren, type ArchiveNode } from './archiveTree';

/** Re-render at most this often while the list streams in. */
const RENDER_MS = 200;

export function ArchiveViewer({ file }: { file: Resource }) {
  const { t } = useTranslation();
  const [state, setState] = useState<{ root: ArchiveNode; count: number; done: boolean; error: string }>(() => ({ root: emptyTree(), count: 0, done: false, error: '' }));

  useEffect(() => {
    const abort = new AbortController();
    const root = emptyTree();
    const index = new Map<ArchiveNode, Map<string, ArchiveNode>>();
    let count = 0;
    let error = '';
    let last = 0;
    const publish = (done: boolean) => setState({ root: { ...root }, count, done, error });
    listArchiveEntries(
      file.path,
      (line) => {
        if (line.error !== undefined) error = line.error;
        else if (line.name !== undefined) {
          addEntry(root, { name: line.name, size: line.size ?? 0, modified: line.modified ?? '', isDir: line.isDir ?? false }, index);
          count++;
        }
        if (Date.now() - last >= RENDER_MS) {
          last = Date.now();
          publish(false);
        }
      },
      abort.signal,
    ).then(
      () => publish(true),
      (err: unknown) => {
        if (abort.signal.aborted) return;
        error = err instanceof Error ? err.message : String(err);
        publish(true);
      },
    );
    return () => abort.abort();
  }, [file.path]);

  return (
    <section className="archive-view" aria-label={t('preview.archive.contents')}>
      <h2 className="archive-view__title" dir="auto">
        {file.name}
      </h2>
      <p className="archive-view__status" role="status">
        {state.done ? t('preview.archive.entries', { count: state.count }) : t('preview.archive.reading', { count: state.count })}
      </p>
      {state.error && (
        <p className="archive-view__error" role="alert">
          {t('preview.archive.error', { error: state.error })}
        </p>
      )}
      <ul className="archive-tree" role="tree" aria-label={t('preview.archive.contents')}>
        {sortedChildren(state.root).map((n) => (
          <ArchiveRow key={n.name} node={n} archive={file.path} depth={0} />
        ))}
      </ul>
    </section>
  );
}

function ArchiveRow({ node, archive, depth }: { node: ArchiveNode; archive: string; depth: number }) {
  const { t } = useTranslation();
  const format = useFormat();
  const [open, setOpen] = useState(false);
  const children = useMemo(() => (open ? sortedChildren(node) : []), [open, node]);
  const date = node.modified ? format.dateTime(new Date(Date.parse(node.modified))) : '';
  if (node.isDir) {
    return (
      <li role="treeitem" aria-expanded={open} aria-selected={false} className="archive-tree__item">
        <button type="button" className="archive-tree__row archive-tree__folder" style={{ paddingInlineStart: `${depth * 1.25 + 0.5}em` }} onClick={() => setOpen(!open)}>
          <Icon name={open ? 'chevronDown' : 'next'} size={16} />
          <Icon name="folder" size={20} />
          <span className="archive-tree__name" dir="auto">
            {node.name}
          </span>
        </button>
        {open && (
          <ul role="group">
            {children.map((c) => (
              <ArchiveRow key={c.name} node={c} archive={archive} depth={depth + 1} />
            ))}
          </ul>
        )}
      </li>
    );
  }
  return (
    <li role="treeitem" aria-selected={false} className="archive-tree__item">
      <div className="archive-tree__row" style={{ paddingInlineStart: `${depth * 1.25 + 0.5 + 1}em` }}>
        <Icon name="file" size={20} />
        <span className="archive-tree__name" dir="auto">
          {node.name}
        </span>
        <span className="archive-tree__size">{format.size(node.size)}</span>
        <span className="archive-tree__date">{date}</span>
        <IconButton icon="download" small label={t('preview.archive.download', { name: node.name })} onClick={() => triggerDownload(archiveEntryUrl(archive, node.entry))} />
      </div>
    </li>
  );
}
