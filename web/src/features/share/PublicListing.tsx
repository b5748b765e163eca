/**
 * A shared folder's items, read-only (docs/client.md §2 "Public share page"): 100 at first, a "+N" tile
 * adds 100 more (docs/client.md §9). Click selects, Ctrl/Cmd or Shift add, double click or Enter opens.
 */
import { useId, type KeyboardEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources';
import { Icon } from '../../components/Icon';
import { useFormat } from '../../i18n/useFormat';
import { ItemDetails } from '../files/ItemDetails';

export interface PublicListingProps {
  items: readonly ResourceItem[];
  shown: number;
  selected: ReadonlySet<number>;
  onItemClick: (index: number, e: MouseEvent | KeyboardEvent) => void;
  onOpen: (item: ResourceItem) => void;
  onMore: () => void;
}

export function PublicListing({ items, shown, selected, onItemClick, onOpen, onMore }: PublicListingProps) {
  const { t } = useTranslation();
  const format = useFormat();
  const ids = useId();
  const hidden = Math.max(0, items.length - shown);
  return (
    <div className="public-list">
      <div role="listbox" aria-multiselectable="true" aria-label={t('files.items')}>
        {items.slice(0, shown).map((item, index) => {
          const isSelected = selected.has(index);
          return (
            <div
              key={item.path}
              role="option"
              aria-selected={isSelected}
              aria-labelledby={`${ids}-${index}-name`}
              aria-describedby={`${ids}-${index}-details`}
              aria-posinset={index + 1}
              aria-setsize={items.length}
              tabIndex={0}
              className={isSelected ? 'item item--selected' : 'item'}
              data-dir={item.isDir}
              onClick={(e) => onItemClick(index, e)}
              onDoubleClick={() => onOpen(item)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') onOpen(item);
                else if (e.key === ' ') {
                  e.preventDefault();
                  onItemClick(index, e);
                }
              }}
            >
              <span className="item__icon">
                <Icon name={item.isDir ? 'folder' : 'file'} size={24} />
              </span>
              <span id={`${ids}-${index}-name`} className="item__name" dir="auto">
                {item.name}
              </span>
              <ItemDetails item={item} id={`${ids}-${index}-details`} />
            </div>
          );
        })}
      </div>
      {hidden > 0 ? (
        <button
          type="button"
          className="public-list__more"
          aria-label={t('publicShare.showMore', { count: hidden })}
          onClick={onMore}
        >
          {/* "+N": a sign and a number, the same in every language. */}
          {`+${new Intl.NumberFormat(format.locale).format(hidden)}`}
        </button>
      ) : null}
    </div>
  );
}
