import { AppPasswordsCard } from '../../features/settings/AppPasswordsCard';
import { PasskeysCard } from '../../features/settings/PasskeysCard';
import { PasswordForm } from '../../features/settings/PasswordForm';
import { ProfileForm } from '../../features/settings/ProfileForm';
import { SecondFactorCard } from '../../features/settings/SecondFactorCard';
import { SessionsCard } from '../../features/settings/SessionsCard';
import { WebdavCard } from '../../features/settings/WebdavCard';
import { useMustEnrol } from '../../features/settings/useMustEnrol';

/**
 * /settings/profile: preferences and the separate password form, then what the account is signed
 * in with — two-factor sign-in, passkeys, sessions, where to mount the files over WebDAV and app
 * passwords (docs/client.md §2, docs/api.md §2.10-§2.13). Two columns side by side on a wide
 * screen (settings.css), one after the other otherwise, in this order.
 */
export default function ProfilePage() {
  // Under --require-second-factor, a user without one can do nothing else yet. The card keeps its
  // place (and so its state: the recovery codes it then shows) when the others appear.
  const only = useMustEnrol();
  return (
    <div className={only ? 'settings__cards' : 'settings__split'}>
      {only ? null : (
        <div className="settings__column">
          <ProfileForm />
          <PasswordForm />
        </div>
      )}
      <div className="settings__column">
        <SecondFactorCard />
        <PasskeysCard />
        {only ? null : <SessionsCard />}
        {only ? null : <WebdavCard />}
        {only ? null : <AppPasswordsCard />}
      </div>
    </div>
  );
}
