/**
 * /files/{path*}: a folder's listing, or an open file — text in the editor, anything else in the
 * preview (spec §2) — with spinner and error page (spec §8).
 */
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { queryKeys } from '../api/queryKeys';
import type { Resource } from '../api/resources';
import { Spinner } from '../components/Spinner';
import { useDocumentTitle } from '../components/useDocumentTitle';
import { errorCodeOf } from '../features/errors/errorKind';
import { ErrorScreen } from '../features/errors/ErrorScreen';
import { Breadcrumbs } from '../features/files/Breadcrumbs';
import { FileBrowser } from '../features/files/FileBrowser';
import { loadResource } from '../features/files/prefetch';
import { fileScreen } from '../features/preview/fileScreen';
import { virtualPathOf } from '../lib/paths';
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
    // TanStack Query aborts the previous request's signal when a new path is asked for (§4). The
    // first listing after a cold load may already be on its way (prefetch.ts).
    queryFn: ({ signal }) => loadResource(path, signal),
    // Stepping from file to file keeps the open file on screen until the next one has loaded.
    placeholderData: (previous) => (previous && !previous.isDir && !path.endsWith('/') ? previous : undefined),
  });
  const name = query.data?.name || t('titles.myFiles');
  useDocumentTitle([name, t('titles.files')]);

  if (query.isPending) return <Spinner label={t('common.loading')} />;
  if (query.isError) return <ErrorScreen code={errorCodeOf(query.error)} />;
  const resource = query.data;
  return (
    <div className={resource.isDir ? 'files' : 'files files--file'}>
      <h1 className="page-title" dir="auto">
        {name}
      </h1>
      {resource.isDir ? (
        <FileBrowser key={path} folder={resource} path={path.endsWith('/') ? path : `${path}/`} />
      ) : (
        <>
          <Breadcrumbs path={resource.path} />
          <FileView file={resource} />
        </>
      )}
    </div>
  );
}
