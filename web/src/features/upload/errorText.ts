/** A failed upload's reason in words (docs/client.md §8: the server's text when there is nothing better). */
import type { TFunction } from 'i18next';
import type { ApiError } from '../../api/errors';

export type Translate = TFunction;

export function uploadErrorText(error: ApiError, t: Translate): string {
  switch (error.status) {
    case 403:
      return t('upload.errors.forbidden');
    case 409:
      return t('upload.errors.exists');
    case 413:
      return t('upload.errors.tooLarge');
    case 507:
      return t('upload.errors.diskFull');
    case 0:
      return t('upload.errors.connection');
    default:
      return error.message;
  }
}
