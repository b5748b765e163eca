/**
 * The user form's sign-in actions for an admin (docs/client.md §2 "Users list and user form";
 * docs/api.md §2.11, §2.12): end all of the user's sessions (its app passwords are revoked with
 * them, and the prompt says so), reset its second factor. Each asks first.
 */
import type { User } from '@coffer/protocol';
import { useTranslation } from 'react-i18next';
import { endUserSessions, resetSecondFactor } from '../../api/users';
import { toast } from '../../stores/toasts';
import { confirmDanger } from '../prompts/ConfirmPrompt';

export function UserSignInActions({ user }: { user: User }) {
  const { t } = useTranslation();
  const name = user.username;

  async function ask(kind: 'endSessions' | 'resetSecondFactor', action: () => Promise<void>) {
    const ok = await confirmDanger({
      title: t(`users.signIn.${kind}Title`, { name }),
      text:
        kind === 'endSessions'
          ? `${t('users.signIn.endSessionsText', { name })} ${t('users.signIn.endSessionsAppPasswords')}`
          : t(`users.signIn.${kind}Text`, { name }),
      cancel: t('files.prompts.cancel'),
      confirm: t(`users.signIn.${kind}`),
    });
    if (!ok) return;
    try {
      await action();
      toast.success(t(`users.signIn.${kind}Done`, { name }));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : String(err));
    }
  }

  return (
    <fieldset className="fieldset">
      <legend className="field__label">{t('users.signIn.title')}</legend>
      <div className="user-form__signin">
        <button type="button" className="button" onClick={() => void ask('endSessions', () => endUserSessions(user.id))}>
          {t('users.signIn.endSessions')}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => void ask('resetSecondFactor', () => resetSecondFactor(user.id))}
        >
          {t('users.signIn.resetSecondFactor')}
        </button>
      </div>
    </fieldset>
  );
}
