import { useTranslation } from 'react-i18next';
import { useDocumentTitle } from '../components/useDocumentTitle';
import type { ErrorCode } from '../features/errors/errorKind';
import { ErrorScreen } from '../features/errors/ErrorScreen';

const TITLE = {
  0: 'titles.internal',
  403: 'titles.forbidden',
  404: 'titles.notFound',
  500: 'titles.internal',
} as const;

/** /403, /404, /500 */
export default function ErrorPage({ code }: { code: ErrorCode }) {
  const { t } = useTranslation();
  useDocumentTitle([t(TITLE[code])]);
  return <ErrorScreen code={code} />;
}
