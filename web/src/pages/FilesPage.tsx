/** /files/{path*}: the folder listing, with spinner and error page (spec §2, §8). */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { queryKeys } from '../api/queryKeys';
import { getResource } from '../api/resources';
import { Spinner } from '../components/Spinner';
import { useDocumentTitle } from '../components/useDocumentTitle';
import { errorCodeOf } from '../features/errors/errorKind';
import { ErrorScreen } from '../features/errors/ErrorScreen';
import { Breadcrumbs } from '../features/files/Breadcrumbs';
import { FileBrowser } from '../features/files/FileBrowser';
import { virtualPathOf } from '../lib/paths';

export default function FilesPage() {
  const { t } = useTranslation();
  const path = virtualPathOf(useParams()['*']);
  const query = useQuery({
    queryKey: queryKeys.resource(path),
    // TanStack Query aborts the previous request's signal when a new path is asked for (§4).
    queryFn: ({ signal }) => getResource(path, signal),
  });
  const name = query.data?.name || t('titles.myFiles');
  useDocumentTitle([name, t('titles.files')]);

  if (query.isPending) return <Spinner label={t('common.loading')} />;
  if (query.isError) return <ErrorScreen code={errorCodeOf(query.error)} />;
  return (
    <div className="files">
      <h1 className="page-title" dir="auto">
        {name}
      </h1>
      {query.data.isDir ? (
        <FileBrowser key={path} folder={query.data} path={path.endsWith('/') ? path : `${path}/`} />
      ) : (
        <Breadcrumbs path={path} />
      )}
    </div>
  );
}
