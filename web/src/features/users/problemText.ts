/** Messages for the user form's problems, shared by the form and the deleteUser prompt. */
import { useTranslation } from 'react-i18next';
import { config } from '../../config';
import type { UserProblem } from './userForm';

/** json authentication asks for the admin's own password on every change (api.md §3, S35). */
export const NEEDS_CURRENT_PASSWORD = config.AuthMethod === 'json';

export function useProblemText(): (problem: UserProblem) => string {
  const { t } = useTranslation();
  return (problem) => {
    if (problem.key === null) return problem.message;
    if (problem.key === 'rules') return problem.message ?? t('users.errors.rules');
    if (problem.key === 'passwordTooShort') return t('users.errors.passwordTooShort', { min: problem.min });
    return t(`users.errors.${problem.key}`);
  };
}
