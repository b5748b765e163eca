/** A settings section whose form arrives with its own issue: the heading under the menu. */
import { useTranslation } from 'react-i18next';

export type SectionKey = 'settings.users';

export default function SectionPage({ title }: { title: SectionKey }) {
  const { t } = useTranslation();
  return (
    <div className="card">
      <h1 className="card__title">{t(title)}</h1>
    </div>
  );
}
