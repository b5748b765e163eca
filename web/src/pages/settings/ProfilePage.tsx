import { AppPasswordsCard } from '../../features/settings/AppPasswordsCard';
import { PasskeysCard } from '../../features/settings/PasskeysCard';
import { PasswordForm } from '../../features/settings/PasswordForm';
import { ProfileForm } from '../../features/settings/ProfileForm';
import { SecondFactorCard } from '../../features/settings/SecondFactorCard';
import { SessionsCard } from '../../features/settings/SessionsCard';
import { WebdavCard } from '../../features/settings/WebdavCard';
import { useMustEnrol } from '../../features/settings/useMustEnrol';

/**
 * /settings/profile: preferences, the separate password form, then what the account is signed in
<<<<<<< HEAD
 * with — two-factor sign-in, passkeys, sessions and app passwords (docs/client.md §2, docs/api.md §2.10-§2.13).
=======
 * with — two-factor sign-in, sessions, where to mount the files over WebDAV and app passwords (docs/client.md §2, docs/api.md §2.10-§2.12).
>>>>>>> e881488 (web: Settings → Profile shows the WebDAV address to mount, Settings → Global the Finder-files setting)
 */
export default function ProfilePage() {
  // Under --require-second-factor, a user without one can do nothing else yet. The card keeps its
  // place (and so its state: the recovery codes it then shows) when the others appear.
  const only = useMustEnrol();
  return (
    <div className="settings__cards">
      {only ? null : <ProfileForm />}
      {only ? null : <PasswordForm />}
      <SecondFactorCard />
      <PasskeysCard />
      {only ? null : <SessionsCard />}
      {only ? null : <WebdavCard />}
      {only ? null : <AppPasswordsCard />}
    </div>
  );
}
