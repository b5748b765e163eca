/** Messages for the user form's problems, shared by the form and the deleteUser prompt. */
import { useTranslation } from 'react-i18next';
import type { UserProblem } from './userDraft';

/**
 * Whether the admin's own password is asked on every change (docs/api.md §3.2, S35): when the
 * server asks it of this session (a user with a local password, not behind the proxy).
 */
export { useNeedsCurrentPassword } from '../settings/CurrentPasswordField';

export function useProblemText(): (problem: UserProblem) => string {
  const { t } = useTranslation();
  return (problem) => {
    if (problem.key === null) return problem.message;
    if (problem.key === 'rules') return problem.message ?? t('users.errors.rules');
    if (problem.key === 'passwordTooShort') return t('users.errors.passwordTooShort', { min: problem.min });
    return t(`users.errors.${problem.key}`);
  };
}
