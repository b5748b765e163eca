/**
 * A PDF in the browser's own viewer, framed from the file's inline URL: file answers allow framing
 * by the app itself (S60 `frame-ancestors 'self'`, no `object-src` limit), and the page's policy
 * lets it frame its own origin (S62 `default-src 'self'`).
 */
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { inlineUrl } from '../files/api';
import { CONTROL_LEAVE, FileScreenToolbar } from './FileScreenToolbar';
import type { ViewerProps } from './ImageViewer';

export function PdfViewer({ file, actions }: ViewerProps) {
  const { t } = useTranslation();
  const src = inlineUrl(file.path);
  const label = t('preview.openInNewTab');
  return (
    <>
      <FileScreenToolbar
        actions={actions}
        keyboard
        controls={[
          {
            id: 'openInNewTab',
            measure: label,
            render: (labelled) => (
              <a className="toolbar__button" href={src} target="_blank" rel="noopener" title={label}>
                <Icon name="open" size={20} />
                <span className={labelled ? undefined : 'visually-hidden'}>{label}</span>
              </a>
            ),
            menu: [
              {
                id: 'openInNewTab',
                label,
                icon: 'open',
                onRun: () => window.open(src, '_blank', 'noopener'),
              },
            ],
            leave: CONTROL_LEAVE.openInNewTab,
          },
        ]}
      />
      <iframe className="pdf-frame" src={src} title={t('preview.pdfTitle', { name: file.name })} />
    </>
  );
}
