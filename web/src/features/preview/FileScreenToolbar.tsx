/**
 * The bar above an open file: close, previous/next in the folder, the screen's own controls, and
 * download, info, rename and delete as the user's permissions allow.
 */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon, type IconName } from '../../components/Icon';
import type { FileActions } from './useFileActions';
// The listing's toolbar buttons (.toolbar__button), restyled for this bar in preview.css.
import '../files/files.css';

interface ButtonProps {
  icon: IconName;
  label: string;
  onClick: () => void;
  disabled?: boolean;
  shortcut?: string;
  /** Always icon-only; the label is for assistive technology and the tooltip. */
  iconOnly?: boolean;
  primary?: boolean;
}

export function ToolbarButton({ icon, label, onClick, disabled, shortcut, iconOnly, primary }: ButtonProps) {
  return (
    <button
      type="button"
      className={primary ? 'toolbar__button toolbar__button--primary' : 'toolbar__button'}
      onClick={onClick}
      disabled={disabled}
      aria-keyshortcuts={shortcut}
      title={label}
    >
      <Icon name={icon} size={20} />
      <span className={iconOnly ? 'visually-hidden' : undefined}>{label}</span>
    </button>
  );
}

export interface FileScreenToolbarProps {
  actions: FileActions;
  /** Controls of the screen (zoom, save), placed after the navigation. */
  children?: ReactNode;
  /** The preview answers Escape and the arrow keys; the editor keeps them for the text. */
  keyboard?: boolean;
}

export function FileScreenToolbar({ actions, children, keyboard = false }: FileScreenToolbarProps) {
  const { t, i18n } = useTranslation();
  const { neighbours, can } = actions;
  // Previous sits at the start of the line: on the right in right-to-left languages.
  const [back, forward] = i18n.dir() === 'rtl' ? ['ArrowRight', 'ArrowLeft'] : ['ArrowLeft', 'ArrowRight'];
  return (
    <div className="file-toolbar" role="toolbar" aria-label={t('preview.actions')}>
      <ToolbarButton
        icon="close"
        label={t('preview.close')}
        onClick={() => void actions.close()}
        shortcut={keyboard ? 'Escape' : undefined}
      />
      {neighbours.count > 1 ? (
        <span className="file-toolbar__nav">
          <ToolbarButton
            icon="previous"
            label={t('preview.previous')}
            onClick={() => void actions.goTo(neighbours.previous)}
            disabled={!neighbours.previous}
            shortcut={keyboard ? back : undefined}
            iconOnly
          />
          {neighbours.position > 0 ? (
            <span className="file-toolbar__position">
              {t('preview.position', { position: neighbours.position, count: neighbours.count })}
            </span>
          ) : null}
          <ToolbarButton
            icon="next"
            label={t('preview.next')}
            onClick={() => void actions.goTo(neighbours.next)}
            disabled={!neighbours.next}
            shortcut={keyboard ? forward : undefined}
            iconOnly
          />
        </span>
      ) : null}
      {children}
      <span className="file-toolbar__end">
        {can.download ? (
          <ToolbarButton
            icon="download"
            label={t('files.actions.download')}
            onClick={actions.download}
            shortcut={keyboard ? 'Control+S' : undefined}
          />
        ) : null}
        {can.share ? (
          <ToolbarButton icon="share" label={t('files.actions.share')} onClick={actions.share} />
        ) : null}
        <ToolbarButton icon="info" label={t('preview.info')} onClick={actions.info} />
        {can.rename ? (
          <ToolbarButton icon="rename" label={t('files.actions.rename')} onClick={() => void actions.rename()} />
        ) : null}
        {can.delete ? (
          <ToolbarButton icon="trash" label={t('files.actions.delete')} onClick={() => void actions.remove()} />
        ) : null}
      </span>
    </div>
  );
}
