import type { User } from '@coffer/protocol';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLateEnglish, setLanguage } from '../../i18n';
import type { LanguageCode } from '../../i18n/languages';
import { NO_PERMISSIONS } from '../settings/permissions';
import { UserForm } from './UserForm';

afterAll(async () => {
  await setLanguage('en');
});

const someone = (username: string) =>
  ({
    id: 7,
    username,
    password: '',
    scope: '/',
    locale: 'en',
    lockPassword: false,
    viewMode: 'list',
    singleClick: false,
    perm: { ...NO_PERMISSIONS },
    commands: [],
    rules: [],
    hideDotfiles: false,
    dateFormat: false,
    sorting: { by: 'name', asc: true },
  }) as unknown as User;

async function heading(username: string, language: LanguageCode) {
  await setLanguage(language);
  await loadLateEnglish();
  const client = new QueryClient();
  // What the server would answer (GET /api/sessions/confirmation): no request leaves the test.
  client.setQueryData(['sessions', 'confirmation'], { confirm: 'password', signedInWith: 'password', until: 0 });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <UserForm user={someone(username)} settings={null} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return screen.getByRole('heading', { level: 1 });
}

describe('the user form’s title', () => {
  it('isolates the name’s direction inside the translated sentence', async () => {
    const title = await heading('ann', 'ar');
    expect(title.textContent).toBe('المستخدم «ann»');
    expect(title.querySelector('bdi')?.textContent).toBe('ann');
  });

  it('shows a name that looks like markup as it is', async () => {
    const title = await heading('<b>x</b>', 'en');
    expect(title.textContent).toBe('User “<b>x</b>”');
    expect(title.querySelector('b')).toBeNull();
  });
});
