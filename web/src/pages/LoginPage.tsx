import { useTranslation } from 'react-i18next';
import { useDocumentTitle } from '../components/useDocumentTitle';
import { LoginForm } from '../features/auth/LoginForm';

/** /login */
export default function LoginPage() {
  const { t } = useTranslation();
  useDocumentTitle([t('titles.login')]);
  return <LoginForm />;
}
