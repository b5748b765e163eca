/**
 * A folder's items, virtualized (spec §2 "File browser"): only the rows in and near the window are
 * in the DOM, so 100,000 entries cost the same nodes as 50. List, mosaic and gallery views; a
 * header to sort by name, size or last modified; lazy thumbnails for images.
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import {
  useCallback,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type MouseEvent,
} from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources';
import { Icon } from '../../components/Icon';
import { config } from '../../config';
import type { SortField, Sorting } from '../../lib/sorting';
import { thumbUrl } from './api';
import { ItemDetails } from './ItemDetails';

export type ViewMode = 'list' | 'mosaic' | 'mosaic gallery';

const ROW_HEIGHT: Record<ViewMode, number> = { list: 52, mosaic: 72, 'mosaic gallery': 212 };
const TILE_WIDTH: Record<ViewMode, number> = { list: 0, mosaic: 240, 'mosaic gallery': 180 };
const SORT_FIELDS: { field: SortField; label: 'files.name' | 'files.size' | 'files.modified' }[] = [
  { field: 'name', label: 'files.name' },
  { field: 'size', label: 'files.size' },
  { field: 'modified', label: 'files.modified' },
];

export interface ListingProps {
  items: ResourceItem[];
  view: ViewMode;
  selected: ReadonlySet<number>;
  /** Multiple-selection mode: every item shows a check box. */
  multiple: boolean;
  sorting: Sorting;
  absoluteDates: boolean;
  onSort: (field: SortField) => void;
  onItemClick: (index: number, e: MouseEvent | KeyboardEvent) => void;
  onOpen: (item: ResourceItem) => void;
}

export function Listing(props: ListingProps) {
  const { items, view, selected, multiple, sorting, onSort } = props;
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState({ width: 0, top: 0 });

  // Where the listing starts on the page (the window scrolls) and how wide it is; content above
  // it (breadcrumbs, toolbar) can change, so this is checked after every render too.
  const measure = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    const rect = el.getBoundingClientRect();
    const next = { width: rect.width, top: rect.top + window.scrollY };
    setBox((b) => (b.width === next.width && b.top === next.top ? b : next));
  }, []);
  useLayoutEffect(measure);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, [measure]);

  const columns = view === 'list' ? 1 : Math.max(1, Math.floor(box.width / TILE_WIDTH[view]));
  const rows = Math.ceil(items.length / columns);
  const virtualizer = useWindowVirtualizer({
    count: rows,
    estimateSize: () => ROW_HEIGHT[view],
    overscan: 4,
    scrollMargin: box.top,
  });

  return (
    <div className={`listing listing--${view.replace(' ', '-')}${multiple ? ' listing--multiple' : ''}`}>
      <div className="listing__header" role="group" aria-label={t('files.sortBy')}>
        {SORT_FIELDS.map(({ field, label }) => {
          const active = sorting.by === field;
          return (
            <button
              key={field}
              type="button"
              className={`listing__sort listing__sort--${field}`}
              aria-pressed={active}
              onClick={() => onSort(field)}
            >
              {t(label)}
              {active ? (
                <>
                  <span aria-hidden="true" className="listing__arrow">
                    {sorting.asc ? '↑' : '↓'}
                  </span>
                  <span className="visually-hidden">
                    {t(sorting.asc ? 'files.sortedAsc' : 'files.sortedDesc')}
                  </span>
                </>
              ) : null}
            </button>
          );
        })}
      </div>
      <div
        ref={ref}
        className="listing__body"
        role="listbox"
        aria-multiselectable="true"
        aria-label={t('files.items')}
        style={{ blockSize: virtualizer.getTotalSize() }}
      >
        {virtualizer.getVirtualItems().map((row) => (
          <div
            key={row.key}
            role="none"
            className="listing__row"
            style={{
              blockSize: row.size,
              transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)`,
              gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
            }}
          >
            {items.slice(row.index * columns, row.index * columns + columns).map((item, i) => {
              const index = row.index * columns + i;
              return (
                <Item
                  key={item.path}
                  {...props}
                  item={item}
                  index={index}
                  setSize={items.length}
                  isSelected={selected.has(index)}
                />
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}

interface ItemProps extends ListingProps {
  item: ResourceItem;
  index: number;
  setSize: number;
  isSelected: boolean;
}

function Item(props: ItemProps) {
  const { item, index, setSize, isSelected, multiple, view, absoluteDates, onItemClick, onOpen } = props;
  const ids = useId();
  const thumb = config.EnableThumbs && item.type === 'image' && !item.isDir;

  function handleKeyDown(e: KeyboardEvent) {
    if (e.key === 'Enter') onOpen(item);
    else if (e.key === ' ') {
      e.preventDefault();
      onItemClick(index, e);
    }
  }

  return (
    <div
      role="option"
      aria-selected={isSelected}
      aria-labelledby={`${ids}-name`}
      aria-describedby={`${ids}-details`}
      aria-posinset={index + 1}
      aria-setsize={setSize}
      tabIndex={0}
      className={isSelected ? 'item item--selected' : 'item'}
      data-dir={item.isDir}
      onClick={(e) => onItemClick(index, e)}
      onDoubleClick={() => onOpen(item)}
      onKeyDown={handleKeyDown}
    >
      <span className="item__icon">
        {thumb ? (
          <img src={thumbUrl(item.path, item.modified)} alt="" loading="lazy" decoding="async" />
        ) : (
          <Icon name={item.isDir ? 'folder' : 'file'} size={view === 'mosaic gallery' ? 56 : 24} />
        )}
        {multiple ? (
          <span className="item__check" aria-hidden="true">
            {isSelected ? <Icon name="checkMark" size={16} /> : null}
          </span>
        ) : null}
      </span>
      <span id={`${ids}-name`} className="item__name" dir="auto">
        {item.name}
      </span>
      <ItemDetails item={item} id={`${ids}-details`} absoluteDates={absoluteDates} />
    </div>
  );
}
