/**
 * /files/{path*}: a folder's listing, or an open file — text in the editor, anything else in the
 * preview (docs/client.md §2) — with spinner and error page (docs/client.md §8).
 */
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigationType, useParams } from 'react-router';
import { queryKeys } from '../api/queryKeys';
import type { Resource } from '../api/resources';
import { Spinner } from '../components/Spinner';
import { useDocumentTitle } from '../components/useDocumentTitle';
import { errorCodeOf } from '../features/errors/errorKind';
import { ErrorScreen } from '../features/errors/ErrorScreen';
import { Breadcrumbs } from '../features/files/Breadcrumbs';
import { FileBrowser } from '../features/files/FileBrowser';
import { clearPartial, partialPublisher, usePartialListing } from '../features/files/partialListing';
import { loadResource } from '../features/files/prefetch';
import { recall } from '../features/files/scrollMemory';
import { fileScreen } from '../features/preview/fileScreen';
import { filesRoute, virtualPathOf } from '../lib/paths';
import { useSession } from '../stores/session';

// CodeMirror and the viewers load only when a file is opened.
const EditorScreen = lazy(() => import('../features/editor/EditorScreen'));
const PreviewScreen = lazy(() => import('../features/preview/PreviewScreen'));

function FileView({ file }: { file: Resource }) {
  const { t } = useTranslation();
  const perm = useSession((s) => s.user?.perm);
  const screen = fileScreen(file, perm);
  return (
    <Suspense fallback={<Spinner label={t('common.loading')} />}>
      {screen.kind === 'editor' ? (
        <EditorScreen key={file.path} file={file} readOnly={screen.readOnly} />
      ) : (
        <PreviewScreen key={file.path} file={file} />
      )}
    </Suspense>
  );
}

export default function FilesPage() {
  const { t } = useTranslation();
  const path = virtualPathOf(useParams()['*']);
  const query = useQuery({
    queryKey: queryKeys.resource(path),
    // TanStack Query aborts the previous request's signal when a new path is asked for (docs/client.md §4). The
    // first listing after a cold load may already be on its way (prefetch.ts). A big folder shows
    // its first rows while the rest arrives (partialListing.ts).
    queryFn: async ({ signal }) => {
      const partial = partialPublisher(path);
      try {
        return await loadResource(path, signal, partial.onItems);
      } catch (err) {
        partial.failed();
        throw err;
      }
    },
    // Stepping from file to file keeps the open file on screen until the next one has loaded.
    placeholderData: (previous) => (previous && !previous.isDir && !path.endsWith('/') ? previous : undefined),
  });
  // Back or Forward to a place the user scrolled in waits for the whole listing to put them back.
  // Decided once per visit: the browser shown early remembers its own place as soon as it mounts.
  const location = useLocation();
  const placeKey = location.key;
  const navigationType = useNavigationType();
  const returningNow = () => navigationType === 'POP' && recall(placeKey) !== undefined;
  const [visit, setVisit] = useState(() => ({ key: placeKey, returning: returningNow() }));
  let { returning } = visit;
  if (visit.key !== placeKey) {
    returning = returningNow();
    setVisit({ key: placeKey, returning });
  }
  const partial = usePartialListing(path);
  const resource = query.data ?? (query.isPending && !returning ? partial : null);
  // Once the whole answer is on screen the items shown early are no longer needed.
  useEffect(() => {
    if (query.data) clearPartial();
  }, [query.data]);
  const name = resource?.name || t('titles.myFiles');
  useDocumentTitle([name, t('titles.files')]);

  if (query.isError) return <ErrorScreen code={errorCodeOf(query.error)} />;
  if (!resource) return <Spinner label={t('common.loading')} />;
  // A folder's route ends in / (docs/client.md §2): the shell then knows the folder (its storage,
  // where the sidebar's New folder and New file create) without asking the server.
  if (resource.isDir && !path.endsWith('/')) {
    const to = { pathname: filesRoute(`${path}/`), search: location.search, hash: location.hash };
    return <Navigate to={to} state={location.state as unknown} replace />;
  }
  return (
    <div className={resource.isDir ? 'files' : 'files files--file'}>
      {/* The heading takes the page's direction, so it starts where the page does (right on a
          right-to-left page); the name inside keeps its own (a Latin name on an Arabic page). */}
      <h1 className="page-title">
        <bdi>{name}</bdi>
      </h1>
      {resource.isDir ? (
        <FileBrowser
          key={path}
          folder={resource}
          arriving={resource !== query.data}
          path={path.endsWith('/') ? path : `${path}/`}
        />
      ) : (
        <>
          <Breadcrumbs path={resource.path} />
          <FileView file={resource} />
        </>
      )}
    </div>
  );
}
