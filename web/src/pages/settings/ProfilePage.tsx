import { PasswordForm } from '../../features/settings/PasswordForm';
import { ProfileForm } from '../../features/settings/ProfileForm';

/** /settings/profile: preferences, then the separate password form (spec §2). */
export default function ProfilePage() {
  return (
    <div className="settings__cards">
      <ProfileForm />
      <PasswordForm />
    </div>
  );
}
