/**
 * A PDF in the browser's own viewer, framed from the file's inline URL: file answers allow framing
 * by the app itself (S60 `frame-ancestors 'self'`, no `object-src` limit), and the page's policy
 * lets it frame its own origin (S62 `default-src 'self'`).
 */
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { inlineUrl } from '../files/api';
import type { ViewerProps } from './ImageViewer';

export function PdfViewer({ file, toolbar }: ViewerProps) {
  const { t } = useTranslation();
  const src = inlineUrl(file.path);
  return (
    <>
      {toolbar(
        <a className="toolbar__button" href={src} target="_blank" rel="noopener" title={t('preview.openInNewTab')}>
          <Icon name="open" size={20} />
          <span>{t('preview.openInNewTab')}</span>
        </a>,
      )}
      <iframe className="pdf-frame" src={src} title={t('preview.pdfTitle', { name: file.name })} />
    </>
  );
}
