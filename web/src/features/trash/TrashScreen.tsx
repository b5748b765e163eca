/**
 * The trash (docs/api.md §22): what was deleted, with the folder it came from, when and its size,
 * sortable by each; restore (a taken name: keep both, or leave it), delete forever and empty, both
 * confirmed. An admin may look at every user's trash. Rows are virtual, so a trash of many
 * thousands of items scrolls as one of ten.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { queryKeys } from '../../api/queryKeys';
import { emptyTrash, listTrash, purgeTrash, restoreTrash, type TrashItem } from '../../api/trash';
import { Checkbox } from '../../components/Checkbox';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { Spinner } from '../../components/Spinner';
import { config } from '../../config';
import { useFormat } from '../../i18n/useFormat';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import { ErrorScreen } from '../errors/ErrorScreen';
import { errorCodeOf } from '../errors/errorKind';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { DEFAULT_TRASH_SORT, nextSort, originalFolder, sortTrash, type TrashSort, type TrashSortKey } from './trash';
import { refreshAfterTrash } from './undo';
import './trash.css';

const COLUMNS = [
  { key: 'name', label: 'files.name' },
  { key: 'folder', label: 'trash.columns.folder' },
  { key: 'deletedAt', label: 'trash.columns.deletedAt' },
  { key: 'size', label: 'files.size' },
] as const satisfies readonly { key: TrashSortKey; label: string }[];
/** A row's height before it is measured: one line on a desktop, two on a phone. */
const ROW_ESTIMATE = 52;

export function TrashScreen() {
  const { t } = useTranslation();
  const format = useFormat();
  const client = useQueryClient();
  const perm = useSession((s) => s.user?.perm);
  const admin = perm?.admin ?? false;
  const [all, setAll] = useState(false);
  const [sort, setSort] = useState<TrashSort>(DEFAULT_TRASH_SORT);
  const trash = useQuery({ queryKey: queryKeys.trash(all), queryFn: ({ signal }) => listTrash(all, signal) });
  const items = useMemo(
    () => (trash.data ? sortTrash(trash.data.items, sort, format.locale, all) : []),
    [trash.data, sort, format.locale, all],
  );

  const listRef = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const listed = items.length > 0;
  // Where the rows start on the page (the window scrolls): measured once the list is there.
  useLayoutEffect(() => {
    setTop((listRef.current?.getBoundingClientRect().top ?? 0) + window.scrollY);
  }, [listed, admin]);
  const virtualizer = useWindowVirtualizer({
    count: items.length,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 6,
    scrollMargin: top,
    getItemKey: (index) => items[index]?.id ?? index,
  });

  /** Runs a change; a failure shows the error prompt; the lists are fetched again either way. */
  async function change(action: () => Promise<unknown>) {
    try {
      await action();
    } catch (err) {
      await showErrorPrompt(err instanceof Error ? err.message : String(err));
    } finally {
      await refreshAfterTrash(client);
    }
  }

  /** The destructive steps ask first (Escape and Cancel leave everything as it was). */
  const confirmed = (title: string, text: string) =>
    confirmDanger({ title, text, cancel: t('files.prompts.cancel'), confirm: title });

  const restore = (item: TrashItem) =>
    change(async () => {
      let where: string;
      try {
        where = await restoreTrash(item.id, 'fail');
      } catch (err) {
        if (!isApiError(err) || err.status !== 409) throw err;
        // The name is taken: keep both (name(1).ext, as the server offers), or leave it in the trash.
        const answer = await confirmDanger({
          title: t('trash.conflictTitle'),
          text: t('trash.conflict', { name: item.name, folder: originalFolder(item, false) }),
          cancel: t('files.prompts.cancel'),
          confirm: null,
          others: [{ answer: 'keep', label: t('trash.keepBoth'), primary: true, focus: true }],
        });
        if (answer !== 'keep') return;
        where = await restoreTrash(item.id, 'rename');
      }
      toast.success(t('trash.restored', { path: where }));
    });

  async function purge(item: TrashItem) {
    if (await confirmed(t('trash.deleteForever'), t('trash.purgeConfirm', { name: item.name }))) {
      await change(() => purgeTrash(item.id));
    }
  }

  async function empty() {
    if (await confirmed(t('trash.empty'), t('trash.emptyConfirm', { count: items.length }))) {
      await change(async () => {
        await emptyTrash(all);
        toast.success(t('trash.emptied'));
      });
    }
  }

  const retention = trash.data?.retentionDays ?? config.TrashDays;
  const header = (
    <div className="trash__head">
      <h1 className="card__title trash__title">
        <Icon name="trash" size={22} />
        {t('trash.title')}
      </h1>
      {perm?.delete && items.length > 0 ? (
        <button type="button" className="button button--danger" onClick={() => void empty()}>
          {t('trash.empty')}
        </button>
      ) : null}
      <p className="trash__note">{retention > 0 ? t('trash.retention', { days: retention }) : t('trash.off')}</p>
      {admin ? <Checkbox label={t('trash.everyone')} checked={all} onChange={setAll} /> : null}
    </div>
  );

  let body;
  if (trash.isPending) body = <Spinner label={t('common.loading')} />;
  else if (trash.isError) body = <ErrorScreen code={errorCodeOf(trash.error)} />;
  else if (items.length === 0) {
    body = (
      <p className="listing__lonely">
        <Icon name="trash" size={40} />
        {t('trash.lonely')}
      </p>
    );
  } else {
    const virtualRows = virtualizer.getVirtualItems();
    body = (
      <div className="trash-table" role="table" aria-label={t('trash.title')} aria-rowcount={items.length + 1}>
        <div className="trash-table__row trash-table__row--head" role="row" aria-rowindex={1}>
          <span className="trash-table__icon" aria-hidden="true" />
          {COLUMNS.map((c) => (
            <span
              key={c.key}
              role="columnheader"
              className={`trash-table__cell trash-table__cell--${c.key}`}
              aria-sort={sort.by === c.key ? (sort.asc ? 'ascending' : 'descending') : 'none'}
            >
              <button type="button" className="trash-table__sort" onClick={() => setSort((s) => nextSort(s, c.key))}>
                {t(c.label)}
                {sort.by === c.key ? <Icon name={sort.asc ? 'arrowUp' : 'arrowDown'} size={14} /> : null}
              </button>
            </span>
          ))}
          <span role="columnheader" className="trash-table__cell trash-table__cell--actions">
            <span className="visually-hidden">{t('trash.actions')}</span>
          </span>
        </div>
        <div ref={listRef} className="trash-table__body" role="rowgroup" style={{ blockSize: virtualizer.getTotalSize() }}>
          {virtualRows.map((v) => {
            const item = items[v.index]!;
            const deleted = new Date(item.deletedAt);
            return (
              <div
                key={v.key}
                ref={virtualizer.measureElement}
                data-index={v.index}
                className="trash-table__row"
                role="row"
                aria-rowindex={v.index + 2}
                style={{ transform: `translateY(${v.start - virtualizer.options.scrollMargin}px)` }}
              >
                <span className="trash-table__icon" aria-hidden="true">
                  <Icon name={item.isDir ? 'folder' : 'file'} />
                </span>
                <span role="cell" className="trash-table__cell trash-table__cell--name" dir="auto">
                  {item.name}
                </span>
                <span role="cell" className="trash-table__cell trash-table__cell--folder" dir="auto">
                  {originalFolder(item, all)}
                </span>
                <span role="cell" className="trash-table__cell trash-table__cell--deletedAt">
                  <time dateTime={item.deletedAt} title={format.relative(deleted)}>
                    {format.dateTime(deleted)}
                  </time>
                </span>
                <span role="cell" className="trash-table__cell trash-table__cell--size">
                  {item.size < 0 ? t('trash.measuring') : format.size(item.size)}
                </span>
                <span role="cell" className="trash-table__cell trash-table__cell--actions">
                  {perm?.create ? (
                    <IconButton small icon="restore" label={t('trash.restore')} onClick={() => void restore(item)} />
                  ) : null}
                  {perm?.delete ? (
                    <IconButton small icon="trash" label={t('trash.deleteForever')} onClick={() => void purge(item)} />
                  ) : null}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    );
  }

  return (
    <div className="card trash">
      {header}
      {body}
    </div>
  );
}
