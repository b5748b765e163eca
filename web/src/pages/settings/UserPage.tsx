import { useParams } from 'react-router';
import { UserEditor } from '../../features/users/UserEditor';

/** /settings/users/{id}; "new" creates a user. */
export default function UserPage() {
  const { id = '' } = useParams();
  return <UserEditor key={id} id={id} />;
}
