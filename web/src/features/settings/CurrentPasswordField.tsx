/**
 * The caller's own password confirming a change to its sign-in (docs/api.md §2.10, §2.12), shown
 * when the server asks it of this session (GET /api/sessions/confirmation: a user with a local
 * password, whatever the auth method); typing clears the error.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { getConfirmation } from '../../api/signin';
import { queryKeys } from '../../api/queryKeys';
import { TextField } from '../../components/Field';
import { ASKS_CURRENT_PASSWORD } from '../../config';

/**
 * Whether the server asks this session for the current password (S35). Until its answer arrives,
 * the auth method's usual answer (json and hook ask).
 */
export function useNeedsCurrentPassword(): boolean {
  const answer = useQuery({
    queryKey: queryKeys.confirmation(),
    queryFn: ({ signal }) => getConfirmation(signal),
    staleTime: 60_000,
  });
  return answer.data ? answer.data.confirm === 'password' : ASKS_CURRENT_PASSWORD;
}

export function CurrentPasswordField(props: {
  name: string;
  value: string;
  error: string | null;
  onChange: (value: string) => void;
  onClearError: () => void;
}) {
  const { t } = useTranslation();
  if (!useNeedsCurrentPassword()) return null;
  return (
    <TextField
      name={props.name}
      label={t('settings.password.current')}
      error={props.error}
      value={props.value}
      password
      onChange={(v) => {
        props.onChange(v);
        props.onClearError();
      }}
    />
  );
}
