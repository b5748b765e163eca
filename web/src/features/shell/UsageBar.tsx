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
  if (!data) return null;
  // With a quota (docs/api.md §11) the bar is the quota's: what the scope and its trash hold of it.
  const quota = data.quota !== undefined && data.quota > 0 ? { of: data.quota, used: data.quotaUsed ?? 0 } : null;
  if (!quota && !(data.total > 0)) return null;
  const percent = quota ? usedPercent(quota.used, quota.of) : usedPercent(data.used, data.total);
  const summary = quota
    ? t('usage.quotaSummary', { used: format.size(quota.used), quota: format.size(quota.of) })
    : t('usage.summary', { used: format.size(data.used), total: format.size(data.total) });
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
        <div className={`usage__fill${percent >= 90 && quota ? ' usage__fill--full' : ''}`} style={{ inlineSize: `${percent}%` }} />
      </div>
      <div className="usage__text">{summary}</div>
      {data.trash ? (
        <div className="usage__text usage__trash">{t('usage.trash', { size: format.size(data.trash) })}</div>
      ) : null}
    </div>
  );
}
