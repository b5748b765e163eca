/**
 * A round button that shows only an icon: its label is the accessible name and the tooltip. With
 * `to` it is a link to that route (same look). `small` is the 32 px size used inside rows and cards.
 */
import type { ButtonHTMLAttributes } from 'react';
import { Link } from 'react-router';
import { Icon, type IconName } from './Icon';

interface Look {
  icon: IconName;
  label: string;
  small?: boolean;
  /** The icon's size in px: 18 on a small button, 20 otherwise. */
  iconSize?: number;
  className?: string;
}

type ButtonProps = Look &
  Omit<
    ButtonHTMLAttributes<HTMLButtonElement>,
    'type' | 'children' | 'title' | 'aria-label' | 'className'
  > & {
    to?: undefined;
  };

type LinkProps = Look & { to: string };

function look({ icon, small = false, iconSize, className }: Look) {
  return {
    className: ['icon-button', small ? 'icon-button--small' : null, className].filter(Boolean).join(' '),
    content: <Icon name={icon} size={iconSize ?? (small ? 18 : 20)} />,
  };
}

export function IconButton(props: ButtonProps | LinkProps) {
  const { className, content } = look(props);
  if (props.to !== undefined) {
    return (
      <Link to={props.to} className={className} aria-label={props.label} title={props.label}>
        {content}
      </Link>
    );
  }
  const {
    icon: _icon,
    label,
    small: _small,
    iconSize: _iconSize,
    className: _className,
    to: _to,
    ...rest
  } = props;
  return (
    <button type="button" {...rest} className={className} aria-label={label} title={label}>
      {content}
    </button>
  );
}
