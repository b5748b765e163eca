/**
 * The public share page (docs/client.md §2 "Public share page"; docs/api.md §15): anonymous or signed in alike,
 * the shared file or folder with its box, a read-only listing with selection, previews of one
 * selected image, song or video, downloads (one file directly, several or folders as an archive
 * in a chosen format) and navigation inside the share. A protected link asks for its password;
 * the token of the answer authenticates the downloads.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../api/queryKeys';
import type { ResourceItem } from '../../api/resources';
import { getPublicShare, publicArchiveUrl, publicDownloadUrl, type PublicResource } from '../../api/shares';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { triggerDownload } from '../../lib/download';
import { isTypingTarget } from '../../lib/keyboard';
import { SHARE_PAGE } from '../../lib/limits';
import { folderOf } from '../../lib/paths';
import { usePrompts } from '../../stores/prompts';
import { ErrorScreen } from '../errors/ErrorScreen';
import { Breadcrumbs } from '../files/Breadcrumbs';
import { chooseArchiveFormat } from '../files/FilePrompts';
import '../../components/toolbar.css';
import '../files/files.css';
import { clickItem, EMPTY_SELECTION, selectAll, selectedItems, type Selection } from '../files/selection';
import { copyLink } from './actions';
import { pageState, previewKind, shareRoute } from './public';
import { PublicListing } from './PublicListing';
import { ShareBox } from './ShareBox';
import { PasswordFor } from './SharePassword';
import { SharePreview } from './SharePreview';
import { UploadShare } from './UploadShare';
import './share.css';

/** One loaded file or folder of the share; mounted per path, so selection resets on navigation (docs/client.md §4). */
function SharedItem({ hash, data }: { hash: string; data: PublicResource }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const promptOpen = usePrompts((s) => s.stack.length > 0);
  const items = data.items ?? [];
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [multiple, setMultiple] = useState(false);
  const [shown, setShown] = useState(SHARE_PAGE);
  const selected = selectedItems(selection, items);
  const only = selected.length === 1 ? selected[0] : undefined;
  const token = data.token;
  // A shared file answers with an empty path; inside a shared folder paths start at its root.
  const inFolderShare = data.path !== '';

  function open(item: ResourceItem) {
    void navigate(shareRoute(hash, item));
  }

  function handleItemClick(index: number, e: MouseEvent | KeyboardEvent) {
    setSelection((s) => clickItem(s, index, { toggle: e.ctrlKey || e.metaKey || multiple, range: e.shiftKey }));
  }

  async function downloadSelection() {
    if (only && !only.isDir) {
      triggerDownload(publicDownloadUrl(hash, only.path, token));
      return;
    }
    const algo = await chooseArchiveFormat();
    if (!algo) return;
    triggerDownload(
      publicArchiveUrl(
        hash,
        data.path,
        selected.map((i) => i.name),
        algo,
        token,
      ),
    );
  }

  // docs/client.md §4: Escape clears the selection and leaves multiple-selection mode; Ctrl/Cmd+A selects all.
  useEffect(() => {
    if (promptOpen || !data.isDir) return;
    function handleKeyDown(e: globalThis.KeyboardEvent) {
      if (isTypingTarget(e.target)) return;
      if (e.key === 'Escape') {
        setSelection(EMPTY_SELECTION);
        setMultiple(false);
      } else if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'a') {
        e.preventDefault();
        setSelection((s) => selectAll(s, Math.min(shown, items.length)));
      }
    }
    window.addEventListener('keydown', handleKeyDown);
    return () => window.removeEventListener('keydown', handleKeyDown);
  }, [promptOpen, data.isDir, shown, items.length]);

  const preview = data.isDir
    ? only
      ? { item: only, kind: previewKind(only) }
      : null
    : { item: data, kind: previewKind(data) };

  return (
    <div className="public-share">
      <h1 className="page-title">
        <bdi>{data.name}</bdi>
      </h1>
      {inFolderShare ? (
        <Breadcrumbs
          path={data.isDir ? data.path : folderOf(data.path)}
          home={{ label: t('publicShare.home'), to: shareRoute(hash, { path: '/', isDir: true }) }}
          route={(p) => shareRoute(hash, { path: p, isDir: true })}
        />
      ) : null}
      <div className="public-share__layout">
        <ShareBox hash={hash} item={data} token={token} />
        <div className="public-share__main">
          {data.isDir ? (
            <>
              <div className="toolbar" role="toolbar" aria-label={t('files.actions.label')}>
                {items.length > 0 ? (
                  <button type="button" className="toolbar__button" onClick={() => void downloadSelection()}>
                    <Icon name="download" size={20} />
                    <span>{t('files.actions.download')}</span>
                    {selected.length > 0 ? <span className="badge">{selected.length}</span> : null}
                  </button>
                ) : null}
                {only && !only.isDir ? (
                  <button
                    type="button"
                    className="toolbar__button"
                    onClick={() =>
                      void copyLink(
                        new URL(publicDownloadUrl(hash, only.path, token), window.location.href).href,
                        t('share.copied'),
                      )
                    }
                  >
                    <Icon name="link" size={20} />
                    <span>{t('publicShare.copyDownloadLink')}</span>
                  </button>
                ) : null}
                {items.length > 0 ? (
                  <button
                    type="button"
                    className="toolbar__button"
                    aria-pressed={multiple}
                    onClick={() => setMultiple((m) => !m)}
                  >
                    <Icon name="selectMultiple" size={20} />
                    <span>{t('publicShare.selectMultiple')}</span>
                  </button>
                ) : null}
                {selected.length > 0 ? (
                  <span className="public-share__count" aria-live="polite">
                    {t('files.selectedCount', { count: selected.length })}
                  </span>
                ) : null}
              </div>
              {items.length === 0 ? (
                <p className="listing__lonely">
                  <Icon name="folder" size={40} />
                  {t('files.lonely')}
                </p>
              ) : (
                <PublicListing
                  items={items}
                  shown={shown}
                  selected={selection.selected}
                  onItemClick={handleItemClick}
                  onOpen={open}
                  onMore={() => setShown((n) => n + SHARE_PAGE)}
                />
              )}
            </>
          ) : null}
          {preview?.kind ? (
            <SharePreview
              key={preview.item.path}
              hash={hash}
              token={token}
              item={preview.item}
              kind={preview.kind}
            />
          ) : null}
        </div>
      </div>
    </div>
  );
}

export function PublicShare({ hash, path }: { hash: string; path: string }) {
  const { t } = useTranslation();
  // The typed password, sent with every page of this share; read when a request starts.
  const password = useRef('');
  const [typed, setTyped] = useState(false);
  const query = useQuery({
    queryKey: queryKeys.publicShare(hash, path),
    queryFn: ({ signal }) => getPublicShare(hash, path, password.current, signal),
  });
  const state = pageState(query.error, typed);
  useDocumentTitle(query.data ? [query.data.name, t('titles.share')] : [t('titles.share')]);

  if (query.isPending) return <Spinner label={t('common.loading')} />;
  if (state.kind === 'password') {
    return <PasswordFor state={state} query={query} passwordRef={password} onTyped={() => setTyped(true)} />;
  }
  // An upload-only share is no normal share (404 here): its own page asks the other route (docs/api.md §23).
  if (state.kind === 'error' && state.code === 404 && path === '/') return <UploadShare hash={hash} />;
  if (state.kind === 'error') return <ErrorScreen code={state.code} />;
  if (!query.data) return null;
  return <SharedItem key={path} hash={hash} data={query.data} />;
}
