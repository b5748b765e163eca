/**
 * An item's size and last-modified date in a listing row (the file browser's and the public
 * share's). The row is an option named by the item's name alone (`aria-labelledby` its name), so
 * "report.pdf" finds it; size and date are its description. They are drawn from `data-text`
 * through CSS (`::before`), so the row's visible text is exactly its name plus text that is not in
 * the document — otherwise the accessible name would no longer contain everything the row shows
 * (WCAG 2.5.3, axe's label-content-name-mismatch). Screen readers get the same words from the
 * visually hidden description.
 */
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources';
import { useFormat } from '../../i18n/useFormat';

interface Props {
  item: Pick<ResourceItem, 'isDir' | 'size' | 'modified' | 'folderSize'>;
  /** The id of the description, for the option's aria-describedby. */
  id: string;
  absoluteDates?: boolean;
}

export function ItemDetails({ item, id, absoluteDates = false }: Props) {
  const { t } = useTranslation();
  const format = useFormat();
  const date = new Date(item.modified);
  const valid = !Number.isNaN(date.getTime());
  // A folder shows its recursive size when the server's file index knows it (docs/api.md §24).
  const size = item.isDir ? (item.folderSize === undefined ? '' : format.size(item.folderSize)) : format.size(item.size);
  const when = valid ? (absoluteDates ? format.dateTime(date) : format.relative(date)) : '';
  return (
    <>
      <span className="item__size" aria-hidden="true" data-text={size} />
      <span
        className="item__modified"
        aria-hidden="true"
        data-text={when}
        title={valid ? format.dateTime(date) : undefined}
      />
      <span id={id} className="visually-hidden">
        {item.isDir ? t('files.folder') : size}
        {valid ? (
          <>
            {', '}
            <time dateTime={item.modified}>{when}</time>
          </>
        ) : null}
      </span>
    </>
  );
}
