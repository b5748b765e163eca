/** The commands a user may run (docs/client.md §2 user form, §5): only meaningful when the server runs commands. */
import { useTranslation } from 'react-i18next';
import { WordsInput } from './WordsInput';

export function CommandsField({
  value,
  onChange,
}: {
  value: readonly string[];
  onChange: (commands: string[]) => void;
}) {
  const { t } = useTranslation();
  return (
    <WordsInput
      label={t('settings.commands.label')}
      hint={t('settings.commands.hint')}
      name="commands"
      value={value}
      onChange={onChange}
    />
  );
}
