import { GlobalSettings } from '../../features/settings/GlobalSettings';

/** /settings/global (admin only; the route guard sends others to /403). */
export default function GlobalSettingsPage() {
  return <GlobalSettings />;
}
