/**
 * The file index's progress on the global settings page (docs/api.md §24.1): "Indexing: 1.2M
 * entries, 60 %" while it builds (read again every 2 s), its size once ready, "off" with
 * --disable-index. Nothing when the server does not answer it (File Browser has no index).
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { queryKeys } from '../../api/queryKeys';
import { getIndexProgress } from '../../api/settings';
import { useFormat } from '../../i18n/useFormat';

const BUILDING_POLL_MS = 2000;

export function IndexStatus() {
  const { t } = useTranslation();
  const format = useFormat();
  const query = useQuery({
    queryKey: queryKeys.indexProgress(),
    queryFn: getIndexProgress,
    retry: false,
    refetchInterval: (q) => (q.state.data?.status === 'building' ? BUILDING_POLL_MS : false),
  });
  const p = query.data;
  if (!p) return null;
  const entries = new Intl.NumberFormat(format.locale, { notation: 'compact', maximumFractionDigits: 1 }).format(p.entries);
  const text =
    p.status === 'building'
      ? t('settings.index.building', { entries, percent: p.percent })
      : p.status === 'ready'
        ? t('settings.index.ready', { entries })
        : t('settings.index.off');
  return (
    <p className="settings__index muted" role="status">
      {text}
    </p>
  );
}
