/**
 * The file browser's header actions (spec §2) and the selection bar. Buttons show icon and name
 * while they fit on one line, icons only (names kept for assistive tech and as tooltips) when
 * they do not; at 736 px or less the selection actions move to their own bar with the count.
 */
import { useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import type { FileAction } from './actions';

export interface FileToolbarProps {
  actions: FileAction[];
  selectedCount: number;
  /** Multiple-selection mode: the bar shows even with nothing selected yet. */
  multiple: boolean;
  onSelectAll: () => void;
  onClearSelection: () => void;
}

function ActionButton({ action, compact, copy }: { action: FileAction; compact: boolean; copy?: boolean }) {
  return (
    <button
      // The selection bar's copy of a button is a second element: the id stays on the toolbar's.
      id={copy ? undefined : action.domId}
      aria-controls={action.controls}
      type="button"
      className="toolbar__button"
      onClick={action.onRun}
      aria-keyshortcuts={action.shortcut}
      aria-pressed={action.pressed}
      title={compact ? action.label : undefined}
      data-action={action.id}
    >
      <Icon name={action.icon} size={20} />
      {action.text ? (
        <>
          <span className="visually-hidden">{action.label} </span>
          <span>{action.text}</span>
        </>
      ) : (
        <span>{action.label}</span>
      )}
      {action.badge ? <span className="badge">{action.badge}</span> : null}
    </button>
  );
}

/**
 * Whether the toolbar needs icons only: measured with names on, once per set of actions, and
 * compared with the width it gets.
 */
function useCompact(signature: string) {
  const ref = useRef<HTMLDivElement>(null);
  const [needed, setNeeded] = useState<{ signature: string; width: number } | null>(null);
  const [width, setWidth] = useState(Infinity);
  const measured = needed?.signature === signature;

  useLayoutEffect(() => {
    const el = ref.current;
    // Names are shown while unmeasured: this reads their full width before the first paint.
    if (el && !measured) setNeeded({ signature, width: el.scrollWidth });
  }, [signature, measured]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  return { ref, compact: measured && width < needed.width };
}

export function FileToolbar({
  actions,
  selectedCount,
  multiple,
  onSelectAll,
  onClearSelection,
}: FileToolbarProps) {
  const { t, i18n } = useTranslation();
  const bar = selectedCount > 0 || multiple;
  const signature = [
    i18n.language,
    bar,
    ...actions.map((a) => `${a.id}:${a.text ?? ''}:${a.badge ?? ''}`),
  ].join();
  const { ref, compact } = useCompact(signature);
  const selectionActions = actions.filter((a) => a.selection);
  const count = t('files.selectedCount', { count: selectedCount });

  return (
    <div
      ref={ref}
      className={compact ? 'toolbar toolbar--compact' : 'toolbar'}
      role="toolbar"
      aria-label={t('files.actions.label')}
    >
      {actions.map((a) =>
        a.selection ? (
          <span key={a.id} className="toolbar__wide">
            <ActionButton action={a} compact={compact} />
          </span>
        ) : (
          <ActionButton key={a.id} action={a} compact={compact} />
        ),
      )}
      {bar ? (
        <div className="selection-bar" role="region" aria-label={count}>
          <span className="selection-bar__count" aria-live="polite">
            {count}
          </span>
          <span className="selection-bar__actions">
            {selectionActions.map((a) => (
              <ActionButton key={a.id} action={a} compact copy />
            ))}
          </span>
          {multiple ? (
            <button
              type="button"
              className="icon-button"
              onClick={onSelectAll}
              aria-label={t('files.actions.selectAll')}
              title={t('files.actions.selectAll')}
              aria-keyshortcuts="Control+A"
            >
              <Icon name="checkAll" size={20} />
            </button>
          ) : null}
          <button
            type="button"
            className="icon-button"
            onClick={onClearSelection}
            aria-label={t('files.actions.clearSelection')}
            title={t('files.actions.clearSelection')}
          >
            <Icon name="close" size={20} />
          </button>
        </div>
      ) : null}
    </div>
  );
}
