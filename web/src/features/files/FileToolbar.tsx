/**
 * The file browser's header actions (docs/client.md §2) and the selection bar, on one line that
 * stays in view while the listing scrolls. The main actions (those on the selection when there is
 * one, else new folder, new file and upload) keep their names while there is room, the others
 * show as icons with their names as tooltips, and what does not fit goes into a "More" menu. At
 * 736 px or less the selection actions leave the toolbar for their own bar with the count.
 */
import { useLayoutEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { IconButton } from '../../components/IconButton';
import { OverflowToolbar, ToolbarButton } from '../../components/OverflowToolbar';
import { useNarrow } from '../../lib/useNarrow';
import { toolbarPlace, type FileAction } from './actions';

export interface FileToolbarProps {
  actions: FileAction[];
  selectedCount: number;
  /** Multiple-selection mode: the bar shows even with nothing selected yet. */
  multiple: boolean;
  onSelectAll: () => void;
  onClearSelection: () => void;
}

/**
 * Publishes the toolbar's height as `--files-toolbar-h` on the root: the listing's sticky column
 * header sits under it, and keyboard moves keep items clear of both (files.css).
 */
function useStickyHeight() {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() =>
      root.style.setProperty('--files-toolbar-h', `${el.offsetHeight}px`),
    );
    observer.observe(el);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--files-toolbar-h');
    };
  }, []);
  return ref;
}

export function FileToolbar({
  actions,
  selectedCount,
  multiple,
  onSelectAll,
  onClearSelection,
}: FileToolbarProps) {
  const { t } = useTranslation();
  const narrow = useNarrow();
  const sticky = useStickyHeight();
  const bar = selectedCount > 0 || multiple;
  const items = actions
    .filter((a) => !(narrow && a.selection))
    .map((a) => ({ action: a, ...toolbarPlace(a, selectedCount > 0, narrow) }));
  const count = t('files.selectedCount', { count: selectedCount });

  const selectionBar = bar ? (
    <div className="selection-bar" role="region" aria-label={count}>
      <span className="selection-bar__count" aria-live="polite">
        {count}
      </span>
      {narrow ? (
        <span className="selection-bar__actions">
          {actions
            .filter((a) => a.selection)
            .map((a) => (
              <ToolbarButton key={a.id} action={a} labelled={false} />
            ))}
        </span>
      ) : null}
      {multiple ? (
        <IconButton
          icon="checkAll"
          label={t('files.actions.selectAll')}
          onClick={onSelectAll}
          aria-keyshortcuts="Control+A"
        />
      ) : null}
      <IconButton icon="close" label={t('files.actions.clearSelection')} onClick={onClearSelection} />
    </div>
  ) : null;

  return (
    <div ref={sticky} className="toolbar-sticky">
      <OverflowToolbar
        label={t('files.actions.label')}
        className="files-toolbar"
        items={items}
        after={selectionBar}
      />
    </div>
  );
}
