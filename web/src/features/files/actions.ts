/**
 * The file browser's actions (spec §2 "File browser" header): one list drives the toolbar, the
 * narrow-screen selection bar and an item's context menu. A feature adds its action by returning
 * a `FileAction` (or null when the user may not use it) from a hook that takes the
 * `FileActionContext`; FileBrowser puts it at its place in `TOOLBAR_ORDER`.
 */
import type { Resource, ResourceItem } from '../../api/resources';
import type { IconName } from '../../components/Icon';

/** spec §2 header order; new folder and new file come first, before the spec's list. */
export const TOOLBAR_ORDER = [
  'newFolder',
  'newFile',
  'share',
  'rename',
  'copy',
  'move',
  'delete',
  'shell',
  'switchView',
  'download',
  'upload',
  'info',
  'selectMultiple',
] as const;

/** The order of an item's context menu ("open" is the menu's own first entry). */
export const MENU_ORDER = ['download', 'share', 'info', 'rename', 'copy', 'move', 'delete'] as const;

export type FileActionId = (typeof TOOLBAR_ORDER)[number];

export interface FileAction {
  id: FileActionId;
  /** The accessible name (and the visible text unless `text` is given). */
  label: string;
  /** Visible text in place of the label (the label then stays for assistive tech). */
  text?: string;
  icon: IconName;
  onRun: () => void;
  /** aria-keyshortcuts, e.g. "F2". */
  shortcut?: string;
  /** A number after the label (download: how many items are selected). */
  badge?: number;
  /** For toggles (select multiple, shell): whether it is on. */
  pressed?: boolean;
  /**
   * spec §2: share, rename, copy, move and delete act on the selection; at 736 px or less they
   * leave the header for the selection bar.
   */
  selection?: boolean;
  /** Also offered in an item's context menu (it then acts on the selection). */
  menu?: boolean;
  /** Drawn in the danger colour in menus (delete). */
  danger?: boolean;
  /** The button's id, for a feature that gives focus back to it (the shell panel). */
  domId?: string;
  /** aria-controls: the id of what the button opens. */
  controls?: string;
}

/** What an action hook gets from the browser. */
export interface FileActionContext {
  /** The folder shown, ending in `/`. */
  path: string;
  folder: Resource;
  /** The selected items, in listing order. */
  selected: ResourceItem[];
  /** Reloads the listing (after a change on the server). */
  reload: () => Promise<void>;
}

/** Orders the actions the user may use by `TOOLBAR_ORDER`; nulls (hidden actions) drop out. */
export function orderActions(actions: readonly (FileAction | false | null | undefined)[]): FileAction[] {
  const rank = (a: FileAction) => TOOLBAR_ORDER.indexOf(a.id);
  return actions.filter((a): a is FileAction => !!a).sort((a, b) => rank(a) - rank(b));
}

/** The context menu's actions, in `MENU_ORDER`. */
export function menuActions(actions: readonly FileAction[]): FileAction[] {
  return MENU_ORDER.map((id) => actions.find((a) => a.id === id && a.menu)).filter(
    (a): a is FileAction => !!a,
  );
}
