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
import { Listing } from '../features/files/Listing';
import { virtualPathOf } from '../lib/paths';

export default function FilesPage() {
  const { t } = useTranslation();
  const path = virtualPathOf(useParams()['*']);
  const query = useQuery({
    queryKey: queryKeys.resource(path),
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
      {query.data.isDir ? <Listing folder={query.data} /> : null}
    </div>
  );
}
