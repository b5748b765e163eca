/**
 * The file browser for one folder (spec §2 "File browser"): breadcrumbs, actions, the listing,
 * selection and the keyboard shortcuts. Mounted with `key={path}` so selection resets on every
 * path change (§4).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useNavigationType } from 'react-router';
import { renewSession } from '../../api/auth';
import { queryKeys } from '../../api/queryKeys';
import { getResource, type Resource, type ResourceItem } from '../../api/resources';
import { updateUserFields } from '../../api/users';
import { Icon } from '../../components/Icon';
import { Menu, type MenuEntry } from '../../components/Menu';
import type { Point } from '../../lib/placement';
import { triggerDownload } from '../../lib/download';
import { isTypingTarget } from '../../lib/keyboard';
import { filesRoute, folderOf } from '../../lib/paths';
import { nextSorting, sortingFrom, sortItems, storedSorting, type SortField, type Sorting } from '../../lib/sorting';
import { usePrompts } from '../../stores/prompts';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { useTerminalAction } from '../terminal/TerminalToggle';
import { archiveUrl, createResource, deleteResource, patchResource, rawUrl } from './api';
import { UploadDropZone } from '../upload/UploadDropZone';
import { useUploadAction } from '../upload/useUploadAction';
import { Breadcrumbs } from './Breadcrumbs';
import { clearClipboard, useClipboard } from './clipboard';
import { askReplace, pickFolder } from './FolderPicker';
import { menuActions, orderActions, type FileAction } from './actions';
import { folderPath, type Drag } from './dnd';
import { askName, chooseArchiveFormat, confirmDelete } from './FilePrompts';
import { FileToolbar } from './FileToolbar';
import { showInfo } from './InfoPrompt';
import { openShare } from '../share/SharePrompt';
import { Listing, type Reveal, type ViewMode } from './Listing';
import './files.css';
import { requestReselect, requestReselectNew, useReselect } from './reselect';
import { recall, remember } from './scrollMemory';
import {
  carrySelection,
  clickItem,
  contextItem,
  EMPTY_SELECTION,
  focusItem,
  isMoveKey,
  longPressItem,
  selectAll,
  selectedItems,
  selectPaths,
  setMultiple,
  toggleItem,
  trimSlash,
  type Selection,
} from './selection';

const VIEWS: ViewMode[] = ['list', 'mosaic', 'mosaic gallery'];
const VIEW_LABEL = {
  list: 'files.views.list',
  mosaic: 'files.views.mosaic',
  'mosaic gallery': 'files.views.gallery',
} as const;

/** How a toolbar shortcut reads in a menu. */
function shortcutHint(shortcut: string | undefined): string | undefined {
  return shortcut?.replace('Control', 'Ctrl').replace('Delete', 'Del');
}

/** Focus is on nothing in particular: arrow keys then start moving through the listing. */
function onPageItself(target: EventTarget | null): boolean {
  return target === document.body || (target instanceof HTMLElement && target.id === 'main');
}

/**
 * `arriving`: `folder` holds the first items of a listing still coming in (partialListing.ts);
 * the component stays mounted when the whole arrives.
 */
export function FileBrowser({ folder, path, arriving = false }: { folder: Resource; path: string; arriving?: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const user = useSession((s) => s.user);
  const perm = user?.perm;
  const promptOpen = usePrompts((s) => s.stack.length > 0);
  const [sorting, setSorting] = useState<Sorting>(() => sortingFrom(folder.sorting));
  const view: ViewMode = VIEWS.find((v) => v === user?.viewMode) ?? 'list';
  const items = useMemo(() => sortItems(folder.items ?? [], sorting), [folder.items, sorting]);

  // Back and Forward come back to where the user was (scroll, selection); a new visit starts at
  // the top with nothing selected.
  const placeKey = useLocation().key;
  const navigationType = useNavigationType();
  const [restored] = useState(() => (navigationType === 'POP' ? recall(placeKey) : undefined));
  const [selection, setSelection] = useState<Selection>(() => {
    if (!restored) return EMPTY_SELECTION;
    const back = selectPaths(EMPTY_SELECTION, items, restored.selected);
    const focus = items.findIndex((i) => i.path === restored.focus);
    return focus >= 0 ? { ...back, focus } : back;
  });
  useLayoutEffect(() => {
    window.history.scrollRestoration = 'manual';
    window.scrollTo(0, restored?.y ?? 0);
  }, [restored]);
  useLayoutEffect(() => {
    const save = () => remember(placeKey, { y: window.scrollY });
    window.addEventListener('scroll', save, { passive: true });
    return () => window.removeEventListener('scroll', save);
  }, [placeKey]);
  useEffect(() => {
    remember(placeKey, {
      selected: selectedItems(selection, items).map((i) => i.path),
      focus: selection.focus === null ? null : (items[selection.focus]?.path ?? null),
    });
  }, [placeKey, selection, items]);

  const [reveal, setReveal] = useState<Reveal | null>(null);
  const [menu, setMenu] = useState<{ index: number; at: Point } | null>(null);

  // §4: a reloaded listing keeps the selection of items with the same path.
  const previous = useRef(items);
  useEffect(() => {
    if (previous.current !== items) setSelection((s) => carrySelection(s, previous.current, items));
    previous.current = items;
  }, [items]);

  // §2: new items (new item, paste, move, upload) are selected and shown once the reloaded
  // listing has them.
  const revealFound = useCallback((index: number) => setReveal({ index, focus: false }), []);
  useReselect(path, items, setSelection, revealFound);

  const selected = selectedItems(selection, items);
  const reload = useCallback(
    () => client.invalidateQueries({ queryKey: queryKeys.resource(path) }),
    [client, path],
  );

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

  async function run(action: () => Promise<unknown>, reloadOnError = false) {
    try {
      await action();
    } catch (err) {
      if (reloadOnError) await reload();
      await showErrorPrompt(err instanceof Error ? err.message : String(err));
      return;
    }
    await reload();
  }

  async function newItem(dir: boolean) {
    const name = await askName({
      title: t(dir ? 'files.actions.newFolder' : 'files.actions.newFile'),
      label: t(dir ? 'files.prompts.folderName' : 'files.prompts.fileName'),
      submit: t('files.prompts.create'),
    });
    if (!name) return;
    await run(async () => {
      await createResource(`${path}${name}${dir ? '/' : ''}`);
      requestReselect(path, [name]);
    });
  }

  async function rename() {
    const item = selected[0];
    if (!item || selected.length !== 1) return;
    const name = await askName({
      title: t('files.actions.rename'),
      label: t('files.prompts.newName'),
      submit: t('files.prompts.save'),
      initial: item.name,
    });
    if (!name || name === item.name) return;
    await run(() => patchResource('rename', item.path, `${path}${name}`));
  }

  async function remove() {
    if (selected.length === 0) return;
    if (!(await confirmDelete(selected.map((i) => i.name)))) return;
    setSelection(EMPTY_SELECTION);
    // §8: a failed delete shows an error prompt and reloads the listing.
    await run(() => Promise.all(selected.map((i) => deleteResource(i.path))), true);
  }

  /**
   * Copies or moves `moving` into `dest` (§4 "Paste", §5): copying into the same folder renames
   * silently; names already in the destination ask overwrite or rename.
   */
  async function transferTo(action: 'copy' | 'move', moving: { from: string; name: string }[], dest: string) {
    let override = false;
    let rename = false;
    let before = items.map((i) => i.name);
    if (action === 'copy' && dest === path) rename = true;
    else {
      try {
        const target = await client.fetchQuery({
          queryKey: queryKeys.resource(dest),
          queryFn: ({ signal }) => getResource(dest, signal),
          staleTime: 0,
        });
        before = (target.items ?? []).map((i) => i.name);
        const existing = new Set(before);
        if (moving.some((m) => existing.has(m.name))) {
          const answer = await askReplace(perm?.modify ?? false);
          if (!answer) return false;
          override = answer === 'overwrite';
          rename = answer === 'rename';
        }
      } catch (err) {
        await showErrorPrompt(err instanceof Error ? err.message : String(err));
        return false;
      }
    }
    let ok = true;
    const done: string[] = [];
    await run(async () => {
      try {
        for (const m of moving) {
          await patchResource(action === 'copy' ? 'copy' : 'rename', m.from, `${dest}${m.name}`, {
            override,
            rename,
          });
          done.push(m.name);
        }
      } catch (err) {
        ok = false;
        throw err;
      } finally {
        if (done.length > 0) reselectAfterTransfer(dest, rename ? before : null, done);
        if (dest !== path) await client.invalidateQueries({ queryKey: queryKeys.resource(dest) });
      }
    });
    return ok;
  }

  /**
   * §2: what arrived is selected in the destination (when the server picked the names: whatever
   * is new there since `before`), and the destination is selected when it is listed here.
   */
  function reselectAfterTransfer(dest: string, before: string[] | null, names: string[]) {
    if (before) requestReselectNew(dest, before);
    else requestReselect(dest, names);
    const destPath = trimSlash(dest);
    if (dest !== path && folderOf(destPath) === path) requestReselect(path, [destPath.slice(path.length)]);
  }

  async function transfer(action: 'copy' | 'move') {
    if (selected.length === 0) return;
    const dest = await pickFolder({ action, current: path });
    if (!dest) return;
    const moving = selected.map((i) => ({ from: i.path, name: i.name }));
    setSelection(EMPTY_SELECTION);
    await transferTo(action, moving, dest);
  }

  /** §2: items dragged onto a folder (a row, a tile or a breadcrumb) move there. */
  function dragFrom(index: number): Drag {
    const item = items[index];
    const whole = selection.selected.has(index) || !item;
    if (!whole) setSelection((s) => ({ ...s, selected: new Set([index]), anchor: index, focus: index }));
    const moving = whole ? selected : [item];
    return { from: path, items: moving.map((i) => ({ path: i.path, name: i.name })) };
  }

  function dropOn(dest: string, drag: Drag) {
    if (!perm?.rename) return;
    setSelection(EMPTY_SELECTION);
    void transferTo(
      'move',
      drag.items.map((i) => ({ from: i.path, name: i.name })),
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

  async function paste() {
    const clip = useClipboard.getState();
    if (!clip.key || clip.items.length === 0) return;
    if (clip.key === 'x' && clip.path === path) return; // moving onto itself changes nothing
    const done = await transferTo(clip.key === 'x' ? 'move' : 'copy', clip.items, path);
    if (done && clip.key === 'x') clearClipboard();
  }

  async function downloadSelection() {
    const only = selected[0];
    if (selected.length === 1 && only && !only.isDir) {
      triggerDownload(rawUrl(only.path));
      return;
    }
    const algo = await chooseArchiveFormat();
    if (!algo) return;
    const names = selected.length > 0 ? selected.map((i) => i.name) : [];
    triggerDownload(archiveUrl(path, names, algo));
  }

  const can = {
    create: perm?.create ?? false,
    rename: (perm?.rename ?? false) && selected.length === 1,
    share: (perm?.share ?? false) && (perm?.download ?? false) && selected.length === 1,
    delete: (perm?.delete ?? false) && selected.length > 0,
    download: perm?.download ?? false,
    copy: (perm?.create ?? false) && selected.length > 0,
    move: (perm?.rename ?? false) && selected.length > 0,
  };

  // Keyboard shortcuts of spec §2 that act on the listing (F1 and search live in the shell).
  const handlers = useRef({ rename, remove, downloadSelection, paste, selected, selection });
  useEffect(() => {
    handlers.current = { rename, remove, downloadSelection, paste, selected, selection };
  });
  useEffect(() => {
    if (promptOpen) return;
    function handleKeyDown(e: globalThis.KeyboardEvent) {
      if (isTypingTarget(e.target) || e.defaultPrevented) return;
      const mod = e.ctrlKey || e.metaKey;
      if (e.key === 'Escape') setSelection(EMPTY_SELECTION);
      else if (isMoveKey(e.key) && onPageItself(e.target) && items.length > 0) {
        // Into the listing: to the item last focused, else the first (or last) one.
        e.preventDefault();
        const { selection: sel } = handlers.current;
        const backwards = e.key === 'ArrowUp' || e.key === 'End';
        const index = sel.focus ?? (backwards ? items.length - 1 : 0);
        if (sel.selected.size === 0) setSelection((s) => focusItem(s, index, { extend: false, keep: false }));
        else setSelection((s) => ({ ...s, focus: index }));
        setReveal({ index, focus: true });
      } else if (e.key === 'Delete' && can.delete) void handlers.current.remove();
      else if (e.key === 'F2' && can.rename) {
        e.preventDefault();
        void handlers.current.rename();
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 'a') {
        e.preventDefault();
        setSelection((s) => selectAll(s, items.length));
      } else if (mod && !e.shiftKey && (e.key.toLowerCase() === 'c' || e.key.toLowerCase() === 'x')) {
        const cut = e.key.toLowerCase() === 'x';
        const chosen = handlers.current.selected;
        if (chosen.length === 0 || (cut ? !can.move : !can.copy)) return;
        if (window.getSelection()?.toString()) return; // the user is copying text
        useClipboard.setState({
          key: cut ? 'x' : 'c',
          items: chosen.map((i) => ({ from: i.path, name: i.name })),
          path,
        });
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 'v') {
        if (!can.create && useClipboard.getState().key === 'c') return;
        e.preventDefault();
        void handlers.current.paste();
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        if (can.download) void handlers.current.downloadSelection();
      }
    }
    window.addEventListener('keydown', handleKeyDown);
    return () => window.removeEventListener('keydown', handleKeyDown);
  }, [promptOpen, can.delete, can.rename, can.download, can.copy, can.move, can.create, items.length, path]);

  // A feature's action comes from its hook, given a FileActionContext ({ path, folder, selected,
  // reload }), and joins this list anywhere: TOOLBAR_ORDER places the buttons.
  const terminalAction = useTerminalAction();
  const uploadAction = useUploadAction(path);
  const actions = orderActions([
    terminalAction,
    uploadAction,
    can.create && {
      id: 'newFolder',
      label: t('files.actions.newFolder'),
      icon: 'folderPlus',
      onRun: () => void newItem(true),
    },
    can.create && {
      id: 'newFile',
      label: t('files.actions.newFile'),
      icon: 'filePlus',
      onRun: () => void newItem(false),
    },
    can.share && {
      id: 'share',
      label: t('files.actions.share'),
      icon: 'share',
      onRun: () => {
        if (selected[0]) void openShare(selected[0]);
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
        onRun: () => void downloadSelection(),
        shortcut: 'Control+S',
        badge: selected.length,
        menu: true,
      },
    {
      id: 'info',
      label: t('files.actions.info'),
      icon: 'info',
      onRun: () => void showInfo(selected.length > 0 ? selected : [folder], { canDownload: can.download }),
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
        onClearSelection={() => setSelection(EMPTY_SELECTION)}
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
