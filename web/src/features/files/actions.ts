/**
 * The file browser's actions (docs/client.md §2 "File browser" header): one list drives the
 * toolbar (and its "More" menu), the narrow-screen selection bar and an item's context menu. A
 * feature adds its action by returning a `FileAction` (or null when the user may not use it) from
 * a hook that takes the `FileActionContext`; FileBrowser puts it at its place in `TOOLBAR_ORDER`.
 */
import type { Resource, ResourceItem } from '../../api/resources';
import type { ToolbarAction, ToolbarPlace } from '../../components/OverflowToolbar';

/** docs/client.md §2 header order; new folder and new file come first, before the spec's list. */
export const TOOLBAR_ORDER = [
  'newFolder',
  'newFile',
  'share',
  'rename',
  'copy',
  'move',
  'extract',
  'compress',
  'delete',
  'shell',
  'switchView',
  'download',
  'upload',
  'info',
  'selectMultiple',
] as const;

/** The order of an item's context menu ("open" is the menu's own first entry). */
export const MENU_ORDER = ['download', 'share', 'info', 'rename', 'copy', 'move', 'extract', 'compress', 'delete'] as const;

export type FileActionId = (typeof TOOLBAR_ORDER)[number];

export interface FileAction extends ToolbarAction {
  id: FileActionId;
  /**
   * docs/client.md §2: share, rename, copy, move and delete act on the selection; at 736 px or less they
   * leave the header for the selection bar.
   */
  selection?: boolean;
  /** Also offered in an item's context menu (it then acts on the selection). */
  menu?: boolean;
}

/**
 * The actions that keep their names in the toolbar while there is room, with and without a
 * selection; the others show as icons, and leave for the "More" menu in `LEAVE_ORDER` when even
 * that does not fit (the primary ones last).
 */
const PRIMARY = {
  selection: ['share', 'rename', 'copy', 'move', 'delete', 'download'],
  none: ['newFolder', 'newFile', 'upload'],
} as const satisfies Record<string, readonly FileActionId[]>;

const LEAVE_ORDER = {
  selection: [
    'newFile',
    'newFolder',
    'upload',
    'shell',
    'switchView',
    // Extract and compress before info: Info keeps its place in the line (docs/client.md §2 order).
    'extract',
    'compress',
    'info',
    // Select multiple stays while it can: it is on while the user picks items one by one.
    'selectMultiple',
    // The primary ones lose their names in this order too: the clearest icons first.
    'delete',
    'share',
    'rename',
    'download',
    'move',
    'copy',
  ],
  none: ['shell', 'info', 'download', 'switchView', 'selectMultiple', 'newFile', 'newFolder', 'upload'],
} as const satisfies Record<string, readonly FileActionId[]>;

/**
 * Where an action goes in the toolbar (OverflowToolbar): primary or not, and when it leaves. On a
 * phone no action is primary: the bar is icons (tooltips, accessible names) and a More menu. A
 * toggle that is on (select multiple, the shell) never leaves: the line shows the mode the page
 * is in.
 */
export function toolbarPlace(action: FileAction, withSelection: boolean, narrow: boolean): ToolbarPlace {
  const which = withSelection ? 'selection' : 'none';
  const leave: readonly FileActionId[] = LEAVE_ORDER[which];
  const primary: readonly FileActionId[] = PRIMARY[which];
  return {
    primary: !narrow && primary.includes(action.id),
    leave: action.pressed ? null : leave.includes(action.id) ? leave.indexOf(action.id) : leave.length,
  };
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
