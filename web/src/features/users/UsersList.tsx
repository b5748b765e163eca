/** The users list (docs/client.md §2 "Users list and user form"): username, admin tick, scope, edit; New. */
import type { QuotaUse } from '@coffer/protocol';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { queryKeys } from '../../api/queryKeys';
import { listQuotas, listUsers } from '../../api/users';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { Spinner } from '../../components/Spinner';
import { errorCodeOf } from '../errors/errorKind';
import { ErrorScreen } from '../errors/ErrorScreen';
import { useFormat } from '../../i18n/useFormat';
import { usedPercent } from '../../lib/bytes';
import './users.css';

export function UsersList() {
  const { t } = useTranslation();
  const format = useFormat();
  const users = useQuery({ queryKey: queryKeys.users(), queryFn: ({ signal }) => listUsers(signal) });
  // Measured on the server (a walk of each scope at most once a while): it may come after the list.
  const quotas = useQuery({ queryKey: queryKeys.quotas(), queryFn: ({ signal }) => listQuotas(signal) });
  const quotaUseOf = (id: number) => quotas.data?.find((q) => q.id === id);
  if (users.isError) return <ErrorScreen code={errorCodeOf(users.error)} />;

  return (
    <section className="card card--wide" aria-labelledby="users-title">
      <div className="card__head">
        <h1 id="users-title" className="card__title">
          {t('settings.users')}
        </h1>
        <Link to="/settings/users/new" className="button button--primary">
          <Icon name="plus" size={18} />
          {t('users.new')}
        </Link>
      </div>
      {users.isPending ? <Spinner label={t('common.loading')} /> : null}
      {users.data ? (
        <table className="users">
          <thead>
            <tr>
              <th scope="col">{t('users.username')}</th>
              <th scope="col" className="users__admin">
                {t('users.admin')}
              </th>
              <th scope="col">{t('users.scope')}</th>
              <th scope="col" className="users__storage">
                {t('users.storage')}
              </th>
              <th scope="col" className="users__edit">
                <span className="visually-hidden">{t('users.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((user) => (
              <tr key={user.id}>
                <td className="users__name" dir="auto">
                  {user.username}
                </td>
                <td className="users__admin">
                  {user.perm.admin ? (
                    <Icon name="check" size={20} label={t('users.isAdmin')} />
                  ) : (
                    <span className="visually-hidden">{t('users.notAdmin')}</span>
                  )}
                </td>
                <td className="users__scope" dir="ltr">
                  {user.scope}
                </td>
                <td className="users__storage">
                  <StorageCell use={quotaUseOf(user.id)} quota={user.quota ?? 0} format={format.size} />
                </td>
                <td className="users__edit">
                  <IconButton
                    small
                    to={`/settings/users/${user.id}`}
                    icon="rename"
                    label={t('users.edit', { name: user.username })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/** "1.2 GiB of 5 GiB" with a small bar when the user has a quota; the use alone otherwise. */
function StorageCell({ use, quota, format }: { use: QuotaUse | undefined; quota: number; format: (n: number) => string }) {
  const { t } = useTranslation();
  if (!use) return quota > 0 ? <span>{t('users.quotaOnly', { quota: format(quota) })}</span> : null;
  if (!(quota > 0)) return <span>{format(use.used)}</span>;
  const percent = usedPercent(use.used, quota);
  return (
    <span className="users__quota">
      <span>{t('users.usedOfQuota', { used: format(use.used), quota: format(quota) })}</span>
      <span className={`users__meter${use.used > quota ? ' users__meter--over' : ''}`} aria-hidden="true">
        <span style={{ inlineSize: `${percent}%` }} />
      </span>
    </span>
  );
}
