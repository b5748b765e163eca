/** Messages for the user form's problems, shared by the form and the deleteUser prompt. */
import { useTranslation } from 'react-i18next';
import { ASKS_CURRENT_PASSWORD } from '../../config';
import type { UserProblem } from './userDraft';

/** json and hook authentication ask for the admin's own password on every change (docs/api.md §3.2, S35). */
export const NEEDS_CURRENT_PASSWORD = ASKS_CURRENT_PASSWORD;

export function useProblemText(): (problem: UserProblem) => string {
  const { t } = useTranslation();
  return (problem) => {
    if (problem.key === null) return problem.message;
    if (problem.key === 'rules') return problem.message ?? t('users.errors.rules');
    if (problem.key === 'passwordTooShort') return t('users.errors.passwordTooShort', { min: problem.min });
    return t(`users.errors.${problem.key}`);
  };
}
