/**
 * The caller's own password confirming a change to its sign-in (docs/api.md §2.10, §2.12), shown
 * only with the json and hook auth methods; typing clears the error.
 */
import { useTranslation } from 'react-i18next';
import { TextField } from '../../components/Field';
import { ASKS_CURRENT_PASSWORD } from '../../config';

/** Whether the server asks for the current password (S35: json and hook auth methods). */
export const needsCurrentPassword = () => ASKS_CURRENT_PASSWORD;

export function CurrentPasswordField(props: {
  name: string;
  value: string;
  error: string | null;
  onChange: (value: string) => void;
  onClearError: () => void;
}) {
  const { t } = useTranslation();
  if (!needsCurrentPassword()) return null;
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
