/**
 * The file browser for one folder (docs/client.md §2 "File browser"): breadcrumbs, actions, the listing,
 * selection and the context menu. Mounted with `key={path}` so selection resets on every path
 * change (docs/client.md §4). What it does to items is useItemActions (shared with the file
 * screens) and useTransfer; its keys, useListingKeys; the selection's memory and the scroll
 * position, useListingSelection.
 */
import { useCallback, useMemo, useState, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { renewSession } from '../../api/auth';
import type { Resource, ResourceItem } from '../../api/resources';
import { updateUserFields } from '../../api/users';
import { Icon } from '../../components/Icon';
import { Menu, type MenuEntry } from '../../components/Menu';
import { shortcutHint } from '../../components/OverflowToolbar';
import type { Point } from '../../lib/placement';
import { filesRoute } from '../../lib/paths';
import { nextSorting, sortingFrom, sortItems, storedSorting, type SortField, type Sorting } from '../../lib/sorting';
import { usePrompts } from '../../stores/prompts';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import { useTerminalAction } from '../terminal/TerminalToggle';
import { UploadDropZone } from '../upload/UploadDropZone';
import { useUploadAction } from '../upload/useUploadAction';
import { Breadcrumbs } from './Breadcrumbs';
import { menuActions, orderActions, type FileAction } from './actions';
import { useCompressAction } from '../jobs/useCompressAction';
import { useExtractAction } from '../jobs/useExtractAction';
import { folderPath, type Drag } from './dnd';
import { FileToolbar } from './FileToolbar';
import { Listing, type Reveal, type ViewMode } from './Listing';
import { useNewItem } from './newItem';
import './files.css';
import { useReselect } from './reselect';
import {
  clickItem,
  contextItem,
  EMPTY_SELECTION,
  focusItem,
  longPressItem,
  selectAll,
  selectedItems,
  setMultiple,
  toggleItem,
} from './selection';
import { useItemActions } from './useItemActions';
import { useListingKeys } from './useListingKeys';
import { useListingSelection } from './useListingSelection';
import { useTransfer } from './useTransfer';

const VIEWS: ViewMode[] = ['list', 'mosaic', 'mosaic gallery'];
const VIEW_LABEL = {
  list: 'files.views.list',
  mosaic: 'files.views.mosaic',
  'mosaic gallery': 'files.views.gallery',
} as const;

/**
 * `arriving`: `folder` holds the first items of a listing still coming in (partialListing.ts);
 * the component stays mounted when the whole arrives.
 */
export function FileBrowser({ folder, path, arriving = false }: { folder: Resource; path: string; arriving?: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useSession((s) => s.user);
  const perm = user?.perm;
  const promptOpen = usePrompts((s) => s.stack.length > 0);
  const [sorting, setSorting] = useState<Sorting>(() => sortingFrom(folder.sorting));
  const view: ViewMode = VIEWS.find((v) => v === user?.viewMode) ?? 'list';
  const items = useMemo(() => sortItems(folder.items ?? [], sorting), [folder.items, sorting]);

  const [selection, setSelection] = useListingSelection(items);
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const [menu, setMenu] = useState<{ index: number; at: Point } | null>(null);

  // docs/client.md §2: new items (new item, paste, move, upload) are selected and shown once the reloaded
  // listing has them.
  const revealFound = useCallback((index: number) => setReveal({ index, focus: false }), []);
  useReselect(path, items, setSelection, revealFound);

  const selected = selectedItems(selection, items);
  const act = useItemActions(path);
  const can = act.can(selected.length);
  const { transferTo, pickAndTransfer, paste } = useTransfer(
    path,
    items.map((i) => i.name),
    act,
  );
  const clearSelection = () => setSelection(EMPTY_SELECTION);

  const open = useCallback(
    (item: ResourceItem) => {
      const target = item.isDir && !item.path.endsWith('/') ? `${item.path}/` : item.path;
      // A file remembers its folder: closing it goes back here instead of adding a history entry.
      void navigate(filesRoute(target), item.isDir ? undefined : { state: { from: path } });
    },
    [navigate, path],
  );

  function handleItemClick(index: number, e: MouseEvent) {
    const mods = { toggle: e.ctrlKey || e.metaKey, range: e.shiftKey };
    const item = items[index];
    const plain = !mods.toggle && !mods.range && !selection.multiple;
    if (user?.singleClick && plain && item) {
      open(item);
      return;
    }
    setSelection((s) => clickItem(s, index, mods));
  }

  function handleSort(by: SortField) {
    const next = nextSorting(sorting, by);
    setSorting(next);
    if (user) {
      updateUserFields(user.id, { sorting: storedSorting(next) }, ['sorting']).catch((err: unknown) =>
        toast.error(err instanceof Error ? err.message : String(err)),
      );
    }
  }

  async function switchView() {
    if (!user) return;
    const next = VIEWS[(VIEWS.indexOf(view) + 1) % VIEWS.length] ?? 'list';
    useSession.setState({ user: { ...user, viewMode: next } });
    try {
      await updateUserFields(user.id, { viewMode: next }, ['viewMode']);
      // The token carries viewMode: a fresh one keeps the choice across reloads.
      await renewSession();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : String(err));
    }
  }

  async function rename() {
    const item = selected[0];
    if (item && selected.length === 1) await act.rename(item);
  }

  async function remove() {
    // docs/client.md §8: a failed delete shows an error prompt and reloads the listing.
    await act.remove(selected, clearSelection);
  }

  const download = () => act.download(selected);

  function transfer(action: 'copy' | 'move') {
    if (selected.length === 0) return;
    const moving = selected.map((i) => ({ from: i.path, name: i.name }));
    return pickAndTransfer(action, moving, clearSelection);
  }

  /** docs/client.md §2: items dragged onto a folder (a row, a tile or a breadcrumb) move there. */
  function dragFrom(index: number): Drag {
    const item = items[index];
    const whole = selection.selected.has(index) || !item;
    if (!whole) setSelection((s) => ({ ...s, selected: new Set([index]), anchor: index, focus: index }));
    const moving = whole ? selected : [item];
    return { from: path, items: moving.map((i) => ({ path: i.path, name: i.name })) };
  }

  function dropOn(dest: string, drag: Drag) {
    if (!perm?.rename) return;
    clearSelection();
    void transferTo(
      'move',
      drag.items.map((i) => ({ from: i.path, name: i.name })),
      drag.from,
      dest,
    );
  }

  function openMenu(index: number, at: Point) {
    setSelection((s) => contextItem(s, index));
    setMenu((m) => (m?.index === index ? m : { index, at }));
  }

  function closeMenu(restoreFocus: boolean) {
    if (restoreFocus && menu) {
      document.querySelector<HTMLElement>(`.listing__body [data-index="${menu.index}"]`)?.focus();
    }
    setMenu(null);
  }

  useListingKeys({
    path,
    items,
    selection,
    selected,
    setSelection,
    setReveal,
    promptOpen,
    can,
    rename,
    remove,
    download,
    paste,
  });

  // A feature's action comes from its hook, given a FileActionContext ({ path, folder, selected,
  // reload }), and joins this list anywhere: TOOLBAR_ORDER places the buttons.
  const terminalAction = useTerminalAction();
  const newItem = useNewItem();
  const uploadAction = useUploadAction(path);
  const extractAction = useExtractAction(path, selected);
  const compressAction = useCompressAction(path, selected);
  const actions = orderActions([
    terminalAction,
    uploadAction,
    extractAction,
    compressAction,
    can.create && {
      id: 'newFolder',
      label: t('files.actions.newFolder'),
      icon: 'folderPlus',
      onRun: () => void newItem(path, true),
    },
    can.create && {
      id: 'newFile',
      label: t('files.actions.newFile'),
      icon: 'filePlus',
      onRun: () => void newItem(path, false),
    },
    can.share && {
      id: 'share',
      label: t('files.actions.share'),
      icon: 'share',
      onRun: () => {
        if (selected[0]) act.share(selected[0]);
      },
      selection: true,
      menu: true,
    },
    can.rename && {
      id: 'rename',
      label: t('files.actions.rename'),
      icon: 'rename',
      onRun: () => void rename(),
      shortcut: 'F2',
      selection: true,
      menu: true,
    },
    can.copy && {
      id: 'copy',
      label: t('files.actions.copy'),
      icon: 'copy',
      onRun: () => void transfer('copy'),
      selection: true,
      menu: true,
    },
    can.move && {
      id: 'move',
      label: t('files.actions.move'),
      icon: 'move',
      onRun: () => void transfer('move'),
      selection: true,
      menu: true,
    },
    can.delete && {
      id: 'delete',
      label: t('files.actions.delete'),
      icon: 'trash',
      onRun: () => void remove(),
      shortcut: 'Delete',
      selection: true,
      menu: true,
      danger: true,
    },
    {
      id: 'switchView',
      label: t('files.switchView'),
      text: t(VIEW_LABEL[view]),
      icon: view === 'list' ? 'list' : 'grid',
      onRun: () => void switchView(),
    },
    can.download &&
      items.length > 0 && {
        id: 'download',
        label: t('files.actions.download'),
        icon: 'download',
        onRun: () => void download(),
        shortcut: 'Control+S',
        badge: selected.length,
        menu: true,
      },
    {
      id: 'info',
      label: t('files.actions.info'),
      icon: 'info',
      onRun: () => act.info(selected.length > 0 ? selected : [folder]),
      menu: true,
    },
    items.length > 0 && {
      id: 'selectMultiple',
      label: t('files.actions.selectMultiple'),
      icon: 'selectMultiple',
      onRun: () => setSelection((s) => setMultiple(s, !s.multiple)),
      pressed: selection.multiple,
    },
  ] satisfies (FileAction | false | null)[]);

  // An item's context menu: open, then the toolbar's actions that act on the selection.
  const menuItem = menu ? items[menu.index] : undefined;
  const menuEntries: MenuEntry[] = [
    ...(menuItem
      ? [
          {
            id: 'open',
            label: t('files.actions.open'),
            icon: 'open' as const,
            onSelect: () => open(menuItem),
          },
        ]
      : []),
    ...menuActions(actions).map((a) => ({
      id: a.id,
      label: a.label,
      icon: a.icon,
      danger: a.danger,
      hint: shortcutHint(a.shortcut),
      keyshortcuts: a.shortcut,
      onSelect: a.onRun,
    })),
  ];

  return (
    <>
      <Breadcrumbs path={path} onDropItems={perm?.rename ? dropOn : undefined} />
      <FileToolbar
        actions={actions}
        selectedCount={selected.length}
        multiple={selection.multiple}
        onSelectAll={() => setSelection((s) => selectAll(s, items.length))}
        onClearSelection={clearSelection}
      />
      <UploadDropZone folder={path} enabled={can.create}>
        {items.length === 0 ? (
          <p className="listing__lonely">
            <Icon name="folder" size={40} />
            {t('files.lonely')}
          </p>
        ) : (
          <Listing
            items={items}
            arriving={arriving}
            view={view}
            selection={selection}
            sorting={sorting}
            absoluteDates={user?.dateFormat ?? false}
            longPressMouse={user?.singleClick ?? false}
            canDrag={perm?.rename ?? false}
            reveal={reveal}
            onSort={handleSort}
            onItemClick={handleItemClick}
            onOpen={open}
            onMove={(index, mods) => setSelection((s) => focusItem(s, index, mods))}
            onToggle={(index) => setSelection((s) => toggleItem(s, index))}
            onLongPress={(index) => setSelection((s) => longPressItem(s, index))}
            onContextMenu={openMenu}
            onDragStart={dragFrom}
            onDrop={(index, drag) => {
              const target = items[index];
              if (target?.isDir) dropOn(folderPath(target.path), drag);
            }}
          />
        )}
        {arriving ? (
          <p className="listing__arriving" role="status">
            {t('common.loading')}
          </p>
        ) : null}
      </UploadDropZone>
      {menu && menuItem ? (
        <Menu
          label={
            selected.length > 1
              ? t('files.selectedCount', { count: selected.length })
              : t('files.itemMenu', { name: menuItem.name })
          }
          entries={menuEntries}
          at={menu.at}
          onClose={closeMenu}
        />
      ) : null}
    </>
  );
}
