import { useEffect } from 'react';
import { productName } from '../config';

/** Sets the page title: the given parts, then the product name (docs/client.md §2 "page title"). */
export function useDocumentTitle(parts: readonly string[]): void {
  const title = [...parts.filter(Boolean), productName()].join(' - ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}
