/**
 * The deleteUser prompt (docs/client.md §2 prompt list, §8): asks for confirmation — and, when the
 * server asks it of the admin's session, the admin's own password (docs/api.md §3.6) — then deletes. A wrong password shows in
 * the prompt; a 403 (the last admin) and other failures close it with an error toast.
 */
import type { User } from '@coffer/protocol';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { deleteUser } from '../../api/users';
import { TextField } from '../../components/Field';
import { openPrompt, type PromptProps } from '../../stores/prompts';
import { toast } from '../../stores/toasts';
import { PromptCard } from '../prompts/PromptCard';
import { useProblemText } from './problemText';
import { problemFromError } from './userDraft';

/** Resolves true once the user is deleted; null when cancelled or refused. */
export function confirmDeleteUser(user: User, needsCurrent: boolean): Promise<true | null> {
  return openPrompt<true>(function DeleteUserPrompt({ resolve, dismiss }: PromptProps<true>) {
    const { t } = useTranslation();
    const problemText = useProblemText();
    const [current, setCurrent] = useState('');
    const [error, setError] = useState<string | null>(null);
    const [busy, setBusy] = useState(false);

    async function handleSubmit(e: FormEvent) {
      e.preventDefault();
      if (busy) return;
      if (needsCurrent && current === '') {
        setError(t('users.errors.currentRequired'));
        return;
      }
      setBusy(true);
      try {
        await deleteUser(user.id, current);
        resolve(true);
      } catch (err) {
        const problem = isApiError(err)
          ? problemFromError(err.status, err.message)
          : ({ field: null, key: null, message: String(err) } as const);
        if (problem.field === 'current') {
          setError(problemText(problem));
          setBusy(false);
          return;
        }
        toast.error(problemText(problem));
        dismiss();
      }
    }

    return (
      <PromptCard title={t('users.deleteTitle')}>
        <form className="delete-user" onSubmit={(e) => void handleSubmit(e)} noValidate>
          <p dir="auto">{t('users.deleteConfirm', { name: user.username })}</p>
          {needsCurrent ? (
            <TextField
              name="current-password"
              label={t('users.currentPassword')}
              error={error}
              password
              autofocus
              value={current}
              onChange={(v) => {
                setCurrent(v);
                setError(null);
              }}
            />
          ) : null}
          <div className="delete-user__actions">
            <button type="button" className="button" onClick={dismiss} data-autofocus={needsCurrent ? undefined : true}>
              {t('users.cancel')}
            </button>
            <button type="submit" className="button button--danger" disabled={busy}>
              {t('users.delete')}
            </button>
          </div>
        </form>
      </PromptCard>
    );
  });
}
