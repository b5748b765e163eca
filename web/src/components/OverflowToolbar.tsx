/**
 * A toolbar on one line whatever its width: items show their names while there is room, the main
 * ones keep them longest, the others become icons (the name then is the tooltip and the accessible
 * name), and what still does not fit goes into a "More" menu button (aria-haspopup, aria-expanded)
 * at the end of the line. overflow.ts decides from widths measured here on the items themselves:
 * when an item's content changes, the bar is laid out once with names and once with icons before
 * it is painted, and each item's two widths are kept.
 */
import {
  useCallback,
  useLayoutEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { Icon, type IconName } from './Icon';
import { Menu, type MenuEntry } from './Menu';
import { fitToolbar } from './overflow';
import './toolbar.css';

/** An action of a toolbar: its button, and its entry once in the More menu. */
export interface ToolbarAction {
  id: string;
  /** The accessible name and tooltip (and the visible name unless `text` is given). */
  label: string;
  /** Visible text in place of the label (the label then stays for assistive tech). */
  text?: string;
  icon: IconName;
  onRun: () => void;
  /** aria-keyshortcuts, e.g. "F2". */
  shortcut?: string;
  /** A number after the name (download: how many items are selected). */
  badge?: number;
  /** For toggles (select multiple, shell): whether it is on. */
  pressed?: boolean;
  disabled?: boolean;
  /** Drawn in the danger colour in menus (delete). */
  danger?: boolean;
  /** The button's id, for a feature that gives focus back to it (the shell panel). */
  domId?: string;
  /** aria-controls: the id of what the button opens. */
  controls?: string;
  /** Always an icon (previous, next, zoom): the name is for assistive tech and the tooltip. */
  iconOnly?: boolean;
  /** Drawn as the screen's main button (the editor's Save while there are changes). */
  highlight?: boolean;
}

/** How a shortcut reads in a menu ("Control+S" → "Ctrl+S"). */
export function shortcutHint(shortcut: string | undefined): string | undefined {
  return shortcut?.replace('Control', 'Ctrl').replace('Delete', 'Del');
}

export function ToolbarButton({ action, labelled = true }: { action: ToolbarAction; labelled?: boolean }) {
  const named = labelled && !action.iconOnly;
  return (
    <button
      id={action.domId}
      aria-controls={action.controls}
      type="button"
      className={action.highlight ? 'toolbar__button toolbar__button--primary' : 'toolbar__button'}
      onClick={action.onRun}
      disabled={action.disabled}
      aria-keyshortcuts={action.shortcut}
      aria-pressed={action.pressed}
      title={named && !action.text ? undefined : action.label}
      data-action={action.id}
    >
      <Icon name={action.icon} size={20} />
      {action.text ? (
        <>
          <span className="visually-hidden">{action.label} </span>
          <span className={named ? undefined : 'visually-hidden'}>{action.text}</span>
        </>
      ) : (
        <span className={named ? undefined : 'visually-hidden'}>{action.label}</span>
      )}
      {action.badge ? <span className="badge">{action.badge}</span> : null}
    </button>
  );
}

/** The entry an action becomes in a menu. */
export function menuEntry(action: ToolbarAction): MenuEntry {
  return {
    id: action.id,
    label: action.label,
    detail: action.text,
    icon: action.icon,
    badge: action.badge,
    checked: action.pressed,
    danger: action.danger,
    hint: shortcutHint(action.shortcut),
    keyshortcuts: action.shortcut,
    onSelect: action.onRun,
  };
}

/** Where an item goes: whether it keeps its name longest, and when it leaves for the More menu. */
export interface ToolbarPlace {
  primary?: boolean;
  /** Lower leaves for the More menu first (default 0); null: it never leaves the bar. */
  leave?: number | null;
  /** Starts the group at the end of the line. */
  end?: boolean;
}

/** An item of one action button (a disabled one never leaves: a menu has no disabled entries). */
export interface ActionItem extends ToolbarPlace {
  action: ToolbarAction;
}

/** An item drawn by the caller (a group of buttons, a status text). */
export interface CustomItem extends ToolbarPlace {
  id: string;
  /** What sets the item's width (its names, a count…): a new value measures it again. */
  measure: string;
  /** The item in the bar; `labelled` false: as an icon. */
  render: (labelled: boolean) => ReactNode;
  /** The entries it becomes in the More menu; without, it never leaves the bar. */
  menu?: ToolbarAction[];
}

export type ToolbarItem = ActionItem | CustomItem;

/** An item as the bar handles it. */
interface Placed {
  id: string;
  measure: string;
  render: (labelled: boolean) => ReactNode;
  /** Its More menu entries; undefined: it never leaves. */
  menu?: MenuEntry[];
  primary: boolean;
  leave: number;
  end: boolean;
  /** The id its element has in the bar: the More button takes it while the item is in the menu. */
  domId?: string;
}

function place(item: ToolbarItem): Placed {
  const base = { primary: item.primary ?? false, leave: item.leave ?? 0, end: item.end ?? false };
  if ('action' in item) {
    const { action } = item;
    return {
      ...base,
      id: action.id,
      measure: [action.label, action.text, action.badge, action.iconOnly].join('\u0000'),
      render: (labelled) => <ToolbarButton action={action} labelled={labelled} />,
      menu: item.leave === null || action.disabled ? undefined : [menuEntry(action)],
      domId: action.domId,
    };
  }
  return {
    ...base,
    id: item.id,
    measure: item.measure,
    render: item.render,
    menu: item.leave === null ? undefined : item.menu?.map(menuEntry),
  };
}

interface Widths {
  labelled?: number;
  icon?: number;
}

/** Measured widths, by item id and `measure`. */
type WidthTable = Map<string, Widths>;

const keyOf = (item: Placed) => `${item.id}\u0000${item.measure}`;

export interface OverflowToolbarProps {
  label: string;
  className: string;
  items: ToolbarItem[];
  /** After the items, outside what they may fill (the listing's selection count). */
  after?: ReactNode;
}

export function OverflowToolbar({ label, className, items: given, after }: OverflowToolbarProps) {
  const items = given.map(place);
  const row = useRef<HTMLDivElement>(null);
  const [widths, setWidths] = useState<WidthTable>(() => new Map());
  const [room, setRoom] = useState<{ available: number; gap: number; more: number } | null>(null);

  // Until every item's width is known both ways, the bar is laid out to measure it (not painted).
  const missing = (look: keyof Widths) => items.some((item) => widths.get(keyOf(item))?.[look] === undefined);
  const probe: keyof Widths | null = missing('labelled') ? 'labelled' : missing('icon') ? 'icon' : null;
  let fit = { labelled: items.map(() => probe !== 'icon'), hidden: items.map(() => false) };
  if (!probe && room) {
    fit = fitToolbar(
      items.map((item) => {
        const w = widths.get(keyOf(item));
        return {
          labelled: w?.labelled ?? 0,
          icon: w?.icon ?? 0,
          primary: item.primary,
          leave: item.menu ? item.leave : null,
        };
      }),
      room.available,
      room.gap,
      room.more,
    );
  }
  const overflow = items.flatMap((item, i) => (fit.hidden[i] ? (item.menu ?? []) : []));
  const showMore = probe !== null || overflow.length > 0;

  const measureRoom = useCallback(() => {
    const el = row.current;
    if (!el) return;
    const more = el.querySelector<HTMLElement>('.overflow-more');
    const style = getComputedStyle(el);
    const next = {
      // The row's padding keeps room for the buttons' focus rings inside its clipping.
      available:
        el.clientWidth -
        (parseFloat(style.paddingInlineStart) || 0) -
        (parseFloat(style.paddingInlineEnd) || 0),
      gap: parseFloat(style.columnGap) || 0,
      more: more?.getBoundingClientRect().width,
    };
    setRoom((r) => {
      const moreWidth = next.more ?? r?.more ?? 0;
      if (r && r.available === next.available && r.gap === next.gap && r.more === moreWidth) return r;
      return { available: next.available, gap: next.gap, more: moreWidth };
    });
  }, []);

  // The room left may change with any render (the selection count beside the items).
  useLayoutEffect(() => measureRoom());

  const signature = items.map(keyOf).join('\u0001');
  useLayoutEffect(() => {
    const el = row.current;
    if (!probe || !el) return;
    const measured = [...el.querySelectorAll<HTMLElement>('[data-key]')].map(
      (node) => [node.dataset.key ?? '', node.getBoundingClientRect().width] as const,
    );
    setWidths((old) => new Map(measured.map(([key, width]) => [key, { ...old.get(key), [probe]: width }])));
  }, [probe, signature]);

  useLayoutEffect(() => {
    const el = row.current;
    if (!el) return;
    const observer = new ResizeObserver(measureRoom);
    observer.observe(el);
    return () => observer.disconnect();
  }, [measureRoom]);

  const firstEnd = items.findIndex((item, i) => item.end && !fit.hidden[i]);
  return (
    <div className={`${className} overflow-bar`} role="toolbar" aria-label={label}>
      <div ref={row} className="overflow-bar__row">
        {items.map((item, i) =>
          fit.hidden[i] ? null : (
            <span
              key={item.id}
              data-key={keyOf(item)}
              className={i === firstEnd ? 'overflow-bar__item overflow-bar__item--end' : 'overflow-bar__item'}
            >
              {item.render(fit.labelled[i] ?? true)}
            </span>
          ),
        )}
        {showMore ? (
          <MoreButton entries={overflow} id={items.find((item, i) => fit.hidden[i] && item.domId)?.domId} />
        ) : null}
      </div>
      {after}
    </div>
  );
}

/** The "More" menu button and its menu. */
function MoreButton({ entries, id }: { entries: MenuEntry[]; id?: string }) {
  const { t } = useTranslation();
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const [at, setAt] = useState<{ x: number; y: number; span: number } | null>(null);
  // Nothing to offer (the bar is being measured, or everything fits again): no menu, and none
  // opening later by itself. The button is never disabled: it may have the focus.
  if (at && entries.length === 0) setAt(null);

  function open() {
    const el = button.current;
    if (!el) return;
    const rect = el.getBoundingClientRect();
    const rtl = getComputedStyle(el).direction === 'rtl';
    setAt({ x: rtl ? rect.right : rect.left, y: rect.bottom + 4, span: rect.width });
  }
  const close = useCallback((restoreFocus: boolean) => {
    setAt(null);
    if (restoreFocus) button.current?.focus();
  }, []);

  function handleKeyDown(e: KeyboardEvent) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      open();
    }
  }

  return (
    <>
      <button
        ref={button}
        id={id}
        type="button"
        className="toolbar__button overflow-more"
        aria-haspopup="menu"
        aria-expanded={at !== null}
        aria-controls={at ? menuId : undefined}
        aria-label={t('common.moreActions')}
        title={t('common.moreActions')}
        onClick={() => (at ? setAt(null) : open())}
        onKeyDown={handleKeyDown}
      >
        <Icon name="more" size={20} />
      </button>
      {at && entries.length > 0
        ? createPortal(
            <Menu
              id={menuId}
              label={t('common.moreActions')}
              entries={entries}
              at={at}
              span={at.span}
              anchor={button}
              onClose={close}
            />,
            document.body,
          )
        : null}
    </>
  );
}
