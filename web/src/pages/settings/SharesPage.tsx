import { useTranslation } from 'react-i18next';
import { ShareTable } from '../../features/share/ShareTable';

/** /settings/shares */
export default function SharesPage() {
  const { t } = useTranslation();
  return (
    <div className="card share-card">
      <h1 className="card__title">{t('settings.shares')}</h1>
      <ShareTable />
    </div>
  );
}
