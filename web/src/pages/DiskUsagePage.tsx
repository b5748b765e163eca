import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useDocumentTitle } from '../components/useDocumentTitle';
import { DiskUsageScreen } from '../features/diskusage/DiskUsageScreen';
import { virtualPathOf } from '../lib/paths';

/** /usage/{folder*}: the disk-usage picture of a folder (docs/api.md §24.2). */
export default function DiskUsagePage() {
  const { t } = useTranslation();
  const path = virtualPathOf(useParams()['*']);
  useDocumentTitle([t('diskUsage.title'), path]);
  return <DiskUsageScreen key={path} path={path} />;
}
