/**
 * A popup menu at a point (a context menu, or under a menu button): role menu, focus on its first
 * entry, Up/Down/Home/End move, Enter or Space runs an entry, Escape or Tab closes and gives focus
 * back; a press outside, scrolling, resizing or leaving the window closes it. It stays inside the
 * viewport.
 */
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { placeMenu, type Point } from '../lib/placement';
import { Icon, type IconName } from './Icon';
import './menu.css';

export interface MenuEntry {
  id: string;
  label: string;
  icon?: IconName;
  /** Shown after the label, e.g. "F2"; `keyshortcuts` is the aria-keyshortcuts form. */
  hint?: string;
  keyshortcuts?: string;
  /** A word after the label, e.g. the view a "Switch view" entry is in now. */
  detail?: string;
  /** A count after the label (download: how many items are selected). */
  badge?: number;
  /** A toggle: the entry is a menuitemcheckbox, checked when on. */
  checked?: boolean;
  danger?: boolean;
  onSelect: () => void;
}

export interface MenuProps {
  id?: string;
  label: string;
  entries: MenuEntry[];
  at: Point;
  /** The width of the menu button `at` is the starting corner of (lib/placement.ts). */
  span?: number;
  /** The menu button: a press on it is not a press outside (the button itself toggles the menu). */
  anchor?: RefObject<HTMLElement | null>;
  /** Closes the menu; `restoreFocus` is false when the user pressed somewhere else. */
  onClose: (restoreFocus: boolean) => void;
}

const ENTRY = '[role="menuitem"], [role="menuitemcheckbox"]';

export function Menu({ id, label, entries, at, span = 0, anchor, onClose }: MenuProps) {
  const ref = useRef<HTMLUListElement>(null);
  const [place, setPlace] = useState<Point | null>(null);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const rtl = getComputedStyle(el).direction === 'rtl';
    const viewport = { width: document.documentElement.clientWidth, height: window.innerHeight };
    setPlace(placeMenu(at, { width: el.offsetWidth, height: el.offsetHeight }, viewport, rtl, 8, span));
  }, [at, span]);
  // Focus goes in once the menu is placed (a hidden element cannot take it).
  useLayoutEffect(() => {
    if (place) ref.current?.querySelector<HTMLElement>(ENTRY)?.focus({ preventScroll: true });
  }, [place]);

  useEffect(() => {
    function handlePointerDown(e: PointerEvent) {
      const target = e.target as Node;
      if (!ref.current?.contains(target) && !anchor?.current?.contains(target)) onClose(false);
    }
    const close = () => onClose(false);
    document.addEventListener('pointerdown', handlePointerDown, true);
    window.addEventListener('scroll', close, true);
    window.addEventListener('resize', close);
    window.addEventListener('blur', close);
    return () => {
      document.removeEventListener('pointerdown', handlePointerDown, true);
      window.removeEventListener('scroll', close, true);
      window.removeEventListener('resize', close);
      window.removeEventListener('blur', close);
    };
  }, [onClose, anchor]);

  function handleKeyDown(e: KeyboardEvent) {
    // The page's own shortcuts (Delete, Ctrl+A…) wait until the menu is closed.
    e.stopPropagation();
    const items = [...(ref.current?.querySelectorAll<HTMLElement>(ENTRY) ?? [])];
    const now = items.indexOf(document.activeElement as HTMLElement);
    let next: number | null = null;
    if (e.key === 'ArrowDown') next = (now + 1) % items.length;
    else if (e.key === 'ArrowUp') next = (now - 1 + items.length) % items.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = items.length - 1;
    else if (e.key === 'Escape' || e.key === 'Tab' || (e.key === 'F10' && e.shiftKey)) {
      e.preventDefault();
      onClose(true);
      return;
    }
    if (next !== null) {
      e.preventDefault();
      items[next]?.focus();
    }
  }

  return (
    <ul
      ref={ref}
      id={id}
      className="menu"
      role="menu"
      aria-label={label}
      style={place ? { left: place.x, top: place.y } : { left: 0, top: 0, visibility: 'hidden' }}
      onKeyDown={handleKeyDown}
      onContextMenu={(e) => e.preventDefault()}
    >
      {entries.map((entry) => (
        <li key={entry.id} role="none">
          <button
            type="button"
            role={entry.checked === undefined ? 'menuitem' : 'menuitemcheckbox'}
            aria-checked={entry.checked}
            tabIndex={-1}
            className={entry.danger ? 'menu__item menu__item--danger' : 'menu__item'}
            aria-keyshortcuts={entry.keyshortcuts}
            onClick={() => {
              onClose(true);
              entry.onSelect();
            }}
          >
            {entry.icon ? <Icon name={entry.icon} size={18} /> : null}
            <span className="menu__label">
              {entry.label}
              {entry.detail ? <span className="menu__detail"> {entry.detail}</span> : null}
            </span>
            {entry.badge ? <span className="badge">{entry.badge}</span> : null}
            {entry.checked ? <Icon name="checkMark" size={18} /> : null}
            {entry.hint ? (
              <kbd className="menu__hint" dir="ltr">
                {entry.hint}
              </kbd>
            ) : null}
          </button>
        </li>
      ))}
    </ul>
  );
}
