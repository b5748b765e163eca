/** /settings/users/{id|new}: loads the user (and the settings for defaults) around the form. */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { queryKeys } from '../../api/queryKeys';
import { getSettings } from '../../api/settings';
import { getUser } from '../../api/users';
import { Spinner } from '../../components/Spinner';
import { errorCodeOf } from '../errors/errorKind';
import { ErrorScreen } from '../errors/ErrorScreen';
import { UserForm } from './UserForm';

const ID = /^[0-9]{1,15}$/;

export function UserEditor({ id }: { id: string }) {
  const { t } = useTranslation();
  const numeric = ID.test(id) ? Number(id) : null;
  const settings = useQuery({ queryKey: queryKeys.settings(), queryFn: getSettings });
  const user = useQuery({
    queryKey: queryKeys.user(numeric ?? -1),
    queryFn: () => getUser(numeric ?? -1),
    enabled: numeric !== null,
  });

  if (id === 'new') {
    if (settings.isPending) return <Spinner label={t('common.loading')} />;
    if (settings.isError) return <ErrorScreen code={errorCodeOf(settings.error)} />;
    return <UserForm key="new" user={null} settings={settings.data} />;
  }
  if (numeric === null) return <ErrorScreen code={404} />;
  if (user.isError) return <ErrorScreen code={errorCodeOf(user.error)} />;
  // The settings only add the minimum password length here: a failure to read them is no reason to stop.
  if (user.isPending || settings.isPending) return <Spinner label={t('common.loading')} />;
  return <UserForm key={user.data.id} user={user.data} settings={settings.data ?? null} />;
}
