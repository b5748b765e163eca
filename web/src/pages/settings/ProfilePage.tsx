import { PreferencesForm } from '../../features/preferences/PreferencesForm';

/** /settings/profile */
export default function ProfilePage() {
  return <PreferencesForm />;
}
