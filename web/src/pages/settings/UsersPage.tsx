import { UsersList } from '../../features/users/UsersList';

/** /settings/users */
export default function UsersPage() {
  return <UsersList />;
}
