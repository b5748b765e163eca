/**
 * Used-of-total storage of the filesystem holding `path` (docs/client.md §2 sidebar, docs/api.md §11),
 * and how much of it the trash holds (docs/api.md §22).
 */
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { queryKeys } from '../../api/queryKeys';
import { getUsage } from '../../api/usage';
import { Icon } from '../../components/Icon';
import { useFormat } from '../../i18n/useFormat';
import { usedPercent } from '../../lib/bytes';

export function UsageBar({ path }: { path: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const labelId = useId();
  const { data } = useQuery({
    queryKey: queryKeys.usage(path),
    queryFn: ({ signal }) => getUsage(path, signal),
    staleTime: 30_000,
  });
  if (!data || !(data.total > 0)) return null;
  const percent = usedPercent(data.used, data.total);
  const summary = t('usage.summary', { used: format.size(data.used), total: format.size(data.total) });
  return (
    <div className="usage" data-testid="usage">
      <div className="usage__head" id={labelId}>
        <Icon name="storage" size={18} />
        {t('usage.label')}
      </div>
      <div
        className="usage__bar"
        role="progressbar"
        aria-labelledby={labelId}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={summary}
      >
        <div className="usage__fill" style={{ inlineSize: `${percent}%` }} />
      </div>
      <div className="usage__text">{summary}</div>
      {data.trash ? (
        <div className="usage__text usage__trash">{t('usage.trash', { size: format.size(data.trash) })}</div>
      ) : null}
    </div>
  );
}
