/**
 * A folder's items, virtualized (docs/client.md §2 "File browser"): only the rows in and near the window are
 * in the DOM, so 100,000 entries cost the same nodes as 50. The folders, then the files, each
 * under a heading; list, mosaic and gallery views; a header to sort by name, size or last
 * modified; lazy thumbnails for images (and videos when the server has ffmpeg). The listbox has one
 * tabbable option (the focused one); arrow keys, Home and End move it, scrolling it into view.
 * Items answer long presses, drags onto folders and context menus.
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type DragEvent,
  type KeyboardEvent,
  type MouseEvent,
  type PointerEvent,
} from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources';
import { Icon } from '../../components/Icon';
import { config } from '../../config';
import type { Point } from '../../lib/placement';
import type { SortField, Sorting } from '../../lib/sorting';
import { thumbUrl } from './api';
import {
  canDropOn,
  currentDrag,
  endDrag,
  folderPath,
  isItemsDrag,
  ITEMS_DRAG_TYPE,
  startDrag,
  type Drag,
} from './dnd';
import { ItemDetails } from './ItemDetails';
import { DoubleTap } from './doubleTap';
import { LongPress } from './longPress';
import { countFolders, headingRows, rowAt, rowCount, rowOf } from './sections';
import { isMoveKey, nextIndex, type FocusModifiers, type Selection } from './selection';

export type ViewMode = 'list' | 'mosaic' | 'mosaic gallery';

const ROW_HEIGHT: Record<ViewMode, number> = { list: 52, mosaic: 72, 'mosaic gallery': 212 };
/** The "Folders" and "Files" headings. */
const HEADING_HEIGHT = 36;
// The narrowest a tile gets; a phone (about 330 px of listing) fits two gallery tiles a row.
const TILE_WIDTH: Record<ViewMode, number> = { list: 0, mosaic: 240, 'mosaic gallery': 160 };
const SORT_FIELDS: { field: SortField; label: 'files.name' | 'files.size' | 'files.modified' }[] = [
  { field: 'name', label: 'files.name' },
  { field: 'size', label: 'files.size' },
  { field: 'modified', label: 'files.modified' },
];

/** Scroll item `index` into view, and focus it when `focus`; a new object asks again. */
export interface Reveal {
  index: number;
  focus: boolean;
}

export interface ListingProps {
  items: ResourceItem[];
  /** More items are still arriving: how many there will be is not known yet. */
  arriving?: boolean;
  view: ViewMode;
  selection: Selection;
  sorting: Sorting;
  absoluteDates: boolean;
  /** A long press with the mouse selects too (single-click mode); touch always does. */
  longPressMouse: boolean;
  /** Items may be dragged onto folders (the rename permission). */
  canDrag: boolean;
  reveal: Reveal | null;
  onSort: (field: SortField) => void;
  onItemClick: (index: number, e: MouseEvent) => void;
  onOpen: (item: ResourceItem) => void;
  /** The keyboard moved to item `index`. */
  onMove: (index: number, mods: FocusModifiers) => void;
  /** Space on item `index`. */
  onToggle: (index: number) => void;
  onLongPress: (index: number) => void;
  /** A context menu asked for on item `index` (right click, the menu key, Shift+F10). */
  onContextMenu: (index: number, at: Point) => void;
  /** The drag that starts on item `index`: the selection when it holds the item, else the item. */
  onDragStart: (index: number) => Drag;
  /** Dragged items dropped on folder item `index`. */
  onDrop: (index: number, drag: Drag) => void;
}

/** The padding the window keeps clear of the fixed header (CSS scroll-padding on the root). */
function scrollPadding(): { start: number; end: number } {
  const style = getComputedStyle(document.documentElement);
  return { start: parseFloat(style.scrollPaddingTop) || 0, end: parseFloat(style.scrollPaddingBottom) || 0 };
}

/** A small picture of what is dragged: the first name and how many items. */
function dragImage(first: string, count: number): HTMLElement {
  const ghost = document.createElement('div');
  ghost.className = 'drag-ghost';
  const name = document.createElement('span');
  name.textContent = first;
  name.dir = 'auto';
  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.textContent = String(count);
  ghost.append(name, badge);
  document.body.append(ghost);
  return ghost;
}

export function Listing(props: ListingProps) {
  const { items, view, selection, sorting, reveal, onSort, onMove, onToggle, onOpen, onContextMenu } = props;
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState({ width: 0, top: 0 });
  const [padding, setPadding] = useState({ start: 0, end: 0 });
  const [dropIndex, setDropIndex] = useState<number | null>(null);
  // One press at a time: the long-press clock is shared by the items.
  const [longPress] = useState(() => new LongPress<number>());
  const [doubleTap] = useState(() => new DoubleTap<string>());
  useEffect(() => () => longPress.cancel(), [longPress]);

  // Where the listing starts on the page (the window scrolls) and how wide it is; content above
  // it (breadcrumbs, toolbar) can change, so this is checked after every render too.
  const measure = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    const rect = el.getBoundingClientRect();
    const next = { width: rect.width, top: rect.top + window.scrollY };
    setBox((b) => (b.width === next.width && b.top === next.top ? b : next));
    const pad = scrollPadding();
    setPadding((p) => (p.start === pad.start && p.end === pad.end ? p : pad));
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
  const folders = useMemo(() => countFolders(items), [items]);
  const sections = useMemo(
    () => ({ folders, count: items.length, columns }),
    [folders, items.length, columns],
  );
  const headings = useMemo(() => headingRows(sections), [sections]);
  // Rows are keyed by position; a new key function tells the virtualizer that the rows' sizes
  // changed (another view, or headings moved) even when their number did not.
  // eslint-disable-next-line react-hooks/exhaustive-deps -- a new function per layout is the point
  const rowKey = useCallback((row: number) => row, [sections, view]);
  const virtualizer = useWindowVirtualizer({
    count: rowCount(sections),
    getItemKey: rowKey,
    estimateSize: (row) => (headings.includes(row) ? HEADING_HEIGHT : ROW_HEIGHT[view]),
    overscan: 4,
    scrollMargin: box.top,
    scrollPaddingStart: padding.start,
    scrollPaddingEnd: padding.end,
  });
  const virtualRows = virtualizer.getVirtualItems();

  // Keyboard focus follows the focused item once its row is rendered (after scrolling to it).
  const pendingFocus = useRef<number | null>(null);
  // The rows as last rendered, read when scrolling: a reveal runs once when asked for, not again
  // each time the listing grows or shrinks (a deletion, an upload, a piece of a big listing).
  const layout = useRef({ sections, paddingStart: padding.start });
  useLayoutEffect(() => {
    layout.current = { sections, paddingStart: padding.start };
  }, [sections, padding.start]);
  const scrollTo = useCallback(
    (index: number, focus: boolean) => {
      const { sections: rows, paddingStart } = layout.current;
      const row = rowOf(rows, index);
      // Scrolling up onto a group's first row shows the group's heading above it too.
      const above = (virtualizer.measurementsCache[row]?.start ?? Infinity) < window.scrollY + paddingStart;
      const headed = above && rowAt(rows, row - 1)?.kind === 'heading';
      virtualizer.scrollToIndex(headed ? row - 1 : row, { align: 'auto' });
      if (focus) pendingFocus.current = index;
    },
    [virtualizer],
  );
  useLayoutEffect(() => {
    const index = pendingFocus.current;
    if (index === null) return;
    const el = ref.current?.querySelector<HTMLElement>(`[data-index="${index}"]`);
    if (!el) return;
    pendingFocus.current = null;
    el.focus({ preventScroll: true });
  });
  useEffect(() => {
    if (reveal) scrollTo(reveal.index, reveal.focus);
  }, [reveal, scrollTo]);

  // The one tabbable option: the focused item when it is rendered, else the first rendered one.
  const shown = virtualRows.map((row) => rowAt(sections, row.index));
  const firstRow = virtualRows[0]?.index ?? 0;
  const lastRow = virtualRows.at(-1)?.index ?? -1;
  const focusRow = selection.focus === null ? -1 : rowOf(sections, selection.focus);
  const focusRendered = focusRow >= firstRow && focusRow <= lastRow;
  const firstShown = shown.find((row) => row?.kind === 'items');
  const tabbable = focusRendered ? selection.focus : firstShown?.kind === 'items' ? firstShown.start : 0;

  function openMenuOn(index: number) {
    const el = ref.current?.querySelector<HTMLElement>(`[data-index="${index}"]`);
    const rect = el?.getBoundingClientRect();
    const rtl = el ? getComputedStyle(el).direction === 'rtl' : false;
    if (rect)
      onContextMenu(index, { x: rtl ? rect.right - 24 : rect.left + 24, y: rect.top + rect.height / 2 });
  }

  function handleKeyDown(e: KeyboardEvent, at: number) {
    if (isMoveKey(e.key) && !e.altKey) {
      const rtl = getComputedStyle(e.currentTarget).direction === 'rtl';
      const to = nextIndex(at, e.key, { count: items.length, columns, folders, rtl });
      if (to === null) return;
      e.preventDefault();
      onMove(to, { extend: e.shiftKey, keep: e.ctrlKey || e.metaKey });
      scrollTo(to, true);
      return;
    }
    const item = items[at];
    if (e.key === 'Enter' && item && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      onOpen(item);
    } else if (e.key === ' ') {
      e.preventDefault();
      onToggle(at);
    } else if (e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) {
      e.preventDefault();
      openMenuOn(at);
    }
  }

  const itemProps: ItemShared = { ...props, dropIndex, setDropIndex, longPress, doubleTap, onKeyDown: handleKeyDown };

  return (
    <div
      className={`listing listing--${view.replace(' ', '-')}${selection.multiple ? ' listing--multiple' : ''}`}
    >
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
        aria-busy={props.arriving}
        style={{ blockSize: virtualizer.getTotalSize() }}
      >
        {virtualRows.map((row, r) => {
          const what = shown[r];
          if (!what) return null;
          const place = {
            blockSize: row.size,
            transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)`,
          };
          // The headings are for the eye: each option's description already says folder or size.
          if (what.kind === 'heading')
            return (
              <div key={row.key} aria-hidden="true" className="listing__row listing__heading" style={place}>
                {t(what.group === 'folders' ? 'files.folders' : 'files.files')}
              </div>
            );
          return (
            <div
              key={row.key}
              role="none"
              className="listing__row"
              style={{ ...place, gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}
            >
              {items.slice(what.start, what.end).map((item, i) => {
                const index = what.start + i;
                return (
                  <Item
                    key={item.path}
                    {...itemProps}
                    item={item}
                    index={index}
                    isSelected={selection.selected.has(index)}
                    isTabbable={index === tabbable}
                  />
                );
              })}
            </div>
          );
        })}
      </div>
    </div>
  );
}

interface ItemShared extends ListingProps {
  dropIndex: number | null;
  setDropIndex: (update: (index: number | null) => number | null) => void;
  longPress: LongPress<number>;
  doubleTap: DoubleTap<string>;
  onKeyDown: (e: KeyboardEvent, index: number) => void;
}

interface ItemProps extends ItemShared {
  item: ResourceItem;
  index: number;
  isSelected: boolean;
  isTabbable: boolean;
}

function Item(props: ItemProps) {
  const { item, index, isSelected, isTabbable, selection, view, absoluteDates, canDrag, dropIndex } = props;
  const { onItemClick, onOpen, setDropIndex, longPress, doubleTap } = props;
  const ids = useId();
  // An image or video the server cannot make a thumbnail of shows the file icon instead of a broken picture.
  const [failedThumb, setFailedThumb] = useState<string | null>(null);
  const thumbSrc = thumbUrl(item.path, item.modified);
  const thumbable = item.type === 'image' || (item.type === 'video' && config.EnableVideoThumbs);
  const thumb = config.EnableThumbs && thumbable && !item.isDir && failedThumb !== thumbSrc;

  function handlePointerDown(e: PointerEvent) {
    doubleTap.pressed(e.pointerType);
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) {
      longPress.cancel();
      return;
    }
    if (e.pointerType === 'mouse' && !props.longPressMouse) return;
    longPress.start(index, e.clientX, e.clientY, props.onLongPress);
  }

  function handleClick(e: MouseEvent) {
    // The click the browser sends when a long press is let go is part of that press.
    if (longPress.consumeFired()) {
      e.preventDefault();
      return;
    }
    onItemClick(index, e);
    // docs/client.md §2, §9: a second tap within 300 ms opens, as a double click does.
    if (doubleTap.touch && doubleTap.tap(item.path, e.timeStamp)) onOpen(item);
  }

  function handleDoubleClick() {
    // Touch double taps are counted in handleClick; a browser's dblclick for them would open twice.
    if (!doubleTap.touch) onOpen(item);
  }

  function handleContextMenu(e: MouseEvent) {
    e.preventDefault();
    // A touch held down is a long press, never a menu.
    if (longPress.pending || longPress.fired) return;
    props.onContextMenu(index, { x: e.clientX, y: e.clientY });
  }

  function handleDragStart(e: DragEvent) {
    longPress.cancel();
    const drag = props.onDragStart(index);
    startDrag(drag);
    e.dataTransfer.effectAllowed = 'move';
    e.dataTransfer.setData(ITEMS_DRAG_TYPE, JSON.stringify(drag.items.map((i) => i.path)));
    if (drag.items.length > 1) {
      const ghost = dragImage(item.name, drag.items.length);
      e.dataTransfer.setDragImage(ghost, -12, -12);
      setTimeout(() => ghost.remove(), 0);
    }
  }

  const target = item.isDir ? folderPath(item.path) : null;
  function accepts(e: DragEvent): boolean {
    return target !== null && isItemsDrag(e.dataTransfer.types) && canDropOn(target, currentDrag());
  }
  function handleDragOver(e: DragEvent) {
    if (!accepts(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'move';
    setDropIndex(() => index);
  }
  function handleDragLeave(e: DragEvent) {
    if (e.currentTarget.contains(e.relatedTarget as Node | null)) return;
    setDropIndex((d) => (d === index ? null : d));
  }
  function handleDrop(e: DragEvent) {
    const drag = currentDrag();
    setDropIndex(() => null);
    if (!accepts(e) || !drag) return;
    e.preventDefault();
    endDrag();
    props.onDrop(index, drag);
  }

  const classes = ['item'];
  if (isSelected) classes.push('item--selected');
  if (dropIndex === index) classes.push('item--drop');

  return (
    <div
      role="option"
      aria-selected={isSelected}
      aria-labelledby={`${ids}-name`}
      aria-describedby={`${ids}-details`}
      aria-posinset={index + 1}
      aria-setsize={props.arriving ? -1 : props.items.length}
      tabIndex={isTabbable ? 0 : -1}
      className={classes.join(' ')}
      data-dir={item.isDir}
      data-index={index}
      draggable={canDrag}
      onClick={handleClick}
      onDoubleClick={handleDoubleClick}
      onKeyDown={(e) => props.onKeyDown(e, index)}
      onPointerDown={handlePointerDown}
      onPointerMove={(e) => longPress.move(e.clientX, e.clientY)}
      onPointerUp={() => longPress.cancel()}
      onPointerCancel={() => longPress.cancel()}
      onPointerLeave={() => longPress.cancel()}
      onContextMenu={handleContextMenu}
      onDragStart={handleDragStart}
      onDragEnd={() => {
        endDrag();
        setDropIndex(() => null);
      }}
      onDragEnter={handleDragOver}
      onDragOver={handleDragOver}
      onDragLeave={handleDragLeave}
      onDrop={handleDrop}
    >
      <span className="item__icon">
        {thumb ? (
          <img
            src={thumbSrc}
            alt=""
            loading="lazy"
            decoding="async"
            draggable={false}
            onError={() => setFailedThumb(thumbSrc)}
          />
        ) : (
          <Icon name={item.isDir ? 'folder' : 'file'} size={view === 'mosaic gallery' ? 56 : 24} />
        )}
        {selection.multiple ? (
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
