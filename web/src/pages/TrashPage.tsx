import { useTranslation } from 'react-i18next';
import { useDocumentTitle } from '../components/useDocumentTitle';
import { TrashScreen } from '../features/trash/TrashScreen';

/** /trash (docs/api.md §22): the caller's trash; every user's for an admin who asks. */
export default function TrashPage() {
  const { t } = useTranslation();
  useDocumentTitle([t('trash.title')]);
  return <TrashScreen />;
}
