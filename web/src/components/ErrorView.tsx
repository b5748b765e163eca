import type { ReactNode } from 'react';
import { Icon, type IconName } from './Icon';

/** An icon and a message for a failed screen (docs/client.md §2 "Error page"). */
export function ErrorView({
  icon,
  message,
  children,
}: {
  icon: IconName;
  message: string;
  children?: ReactNode;
}) {
  return (
    <div className="error-view">
      <span className="error-view__icon">
        <Icon name={icon} size={56} />
      </span>
      <h1 className="error-view__message">{message}</h1>
      {children}
    </div>
  );
}
