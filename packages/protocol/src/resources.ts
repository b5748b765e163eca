/**
 * Files and folders as the API describes them (docs/api.md §7, §11, §12, §15): TypeBox schemas plus
 * their static types. The server documents and serializes with the schemas; the web client imports
 * the types only.
 */
import { Type, type Static } from 'typebox';

/** A listing order (docs/api.md §7.5). */
export const Sorting = Type.Object({ by: Type.String(), asc: Type.Boolean() });
export type Sorting = Static<typeof Sorting>;

/** docs/api.md §7.4; `""` for folders, `invalid_link` for a link whose target is missing. */
export const RESOURCE_TYPES = [
  '',
  'video',
  'audio',
  'image',
  'pdf',
  'text',
  'textImmutable',
  'blob',
  'invalid_link',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];
/** A plain string enum: serializers write it as a string, without trying each literal in turn. */
export const ResourceTypeSchema = Type.Unsafe<ResourceType>({ type: 'string', enum: [...RESOURCE_TYPES] });

/**
 * The fields of every resource object, in the order File Browser writes them (docs/api.md §7.1).
 * Listings and file answers are written as text in this order; response schemas name them in the
 * same order, so a serializer never reorders them.
 */
export const ResourceItem = Type.Object({
  path: Type.String({ description: 'scope-relative, leading "/", no trailing "/"' }),
  name: Type.String({ description: 'last segment; "" for the scope folder' }),
  size: Type.Number({ description: 'bytes' }),
  extension: Type.String({ description: 'from the last dot, dot included; "" without one' }),
  modified: Type.String({ description: 'RFC 3339, nanoseconds when not zero' }),
  mode: Type.Number({ description: "Go's os.FileMode: permission bits plus type bits" }),
  isDir: Type.Boolean(),
  isSymlink: Type.Boolean(),
  type: ResourceTypeSchema,
});
export type ResourceItem = Static<typeof ResourceItem>;

/**
 * GET /api/resources/{folder} (docs/api.md §7.2).
 *
 * FIELD ORDER OF THE STREAMED TEXT — the web client relies on it (web/src/api/listingStream.ts):
 * the folder's own fields (as ResourceItem), then `sorting`, then `items`, then `numDirs` and
 * `numFiles`. `sorting` comes before `items` so that a reader of the streamed answer knows the
 * order of the rows from the first piece on, and shows them while the rest arrives. The server
 * writes this text itself (server/src/fs/listing.ts); `LISTING_FIELD_ORDER` is checked against its
 * output by the integration tests. JSON readers that parse the whole answer may ignore the order.
 */
/**
 * One item of a folder listing: the resource fields, then — for a folder (not a link to one) while
 * the file index is ready — `folderSize`, its recursive size (docs/api.md §24). File Browser's
 * `size` stays the folder entry's own size.
 */
export const ListingItem = Type.Object({
  ...ResourceItem.properties,
  folderSize: Type.Optional(Type.Number({ description: "a folder's recursive size in bytes, from the file index; absent without it" })),
});
export type ListingItem = Static<typeof ListingItem>;

export const FolderListing = Type.Object({
  ...ResourceItem.properties,
  sorting: Sorting,
  items: Type.Array(ListingItem, { description: 'in the order of docs/api.md §7.5' }),
  numDirs: Type.Integer(),
  numFiles: Type.Integer(),
});
export type FolderListing = Static<typeof FolderListing>;

/** The top-level keys of a folder listing, in the order they are written (see FolderListing). */
export const LISTING_FIELD_ORDER = Object.keys(FolderListing.properties) as (keyof FolderListing)[];

/** GET /api/resources/{file} (docs/api.md §7.3): the resource object plus, sometimes, these. */
export const FileInfo = Type.Object({
  ...ResourceItem.properties,
  content: Type.Optional(Type.String({ description: 'text files of 1 byte to 10 MiB, with download' })),
  subtitles: Type.Optional(
    Type.Array(Type.String(), { description: 'videos: paths usable with /api/subtitle' }),
  ),
  checksums: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: 'with ?checksum=: {"<algo>": "<hex>"}' }),
  ),
});
export type FileInfo = Static<typeof FileInfo>;

/** One element of GET /api/resources/recursive/{folder} (docs/api.md §7.6), keys in this order. */
export const RecursiveEntry = Type.Object({
  path: Type.String(),
  name: Type.String(),
  size: Type.Number(),
  modified: Type.String(),
  isDir: Type.Boolean(),
});
export type RecursiveEntry = Static<typeof RecursiveEntry>;

/** One line of GET /api/search/{folder} (docs/api.md §12). */
export const SearchHit = Type.Object({
  dir: Type.Boolean(),
  path: Type.String({ description: 'relative to the searched folder, no leading "/"' }),
});
export type SearchHit = Static<typeof SearchHit>;

/** GET /api/usage/{path} (docs/api.md §11): the filesystem holding a folder; zeros for a file. */
export const Usage = Type.Object({
  total: Type.Number(),
  used: Type.Number(),
  /** Coffer: bytes in the trash of the caller's scope (docs/api.md §22; absent for a file). */
  trash: Type.Optional(Type.Number()),
  /** Coffer: the caller's byte quota when it has one (docs/api.md §11). */
  quota: Type.Optional(Type.Number()),
  /** Coffer, with `quota`: the bytes counted against it (the scope and its trash). */
  quotaUsed: Type.Optional(Type.Number()),
});
export type Usage = Static<typeof Usage>;

/**
 * GET /api/public/share/{hash}/{subpath} (docs/api.md §15.2): the resource object relative to the
 * share; a folder adds its items, counts and the fixed sorting (after the items, as File Browser
 * writes them); `token` only for password-protected links.
 */
export const PublicResource = Type.Object({
  ...ResourceItem.properties,
  items: Type.Optional(Type.Array(ResourceItem)),
  numDirs: Type.Optional(Type.Integer()),
  numFiles: Type.Optional(Type.Integer()),
  sorting: Type.Optional(Sorting),
  token: Type.Optional(Type.String({ description: 'download token of a password-protected share' })),
});
export type PublicResource = Static<typeof PublicResource>;

const Decimal = (description: string) => Type.String({ pattern: '^[0-9]+$', description });

/**
 * The state of a resumable upload (docs/api.md §13.3): what HEAD /api/tus/{path} answers, in
 * headers — the bytes received so far and the declared length, decimal digits only (S50).
 */
export const UploadState = Type.Object({
  'Upload-Offset': Decimal('bytes received and kept'),
  'Upload-Length': Decimal('the length declared at creation'),
});
export type UploadState = Static<typeof UploadState>;

/** GET /api/quotas (docs/api.md §3.8): each user's quota and the bytes counted against it (admins only). */
export const QuotaUse = Type.Object({
  id: Type.Integer(),
  /** Bytes; 0 = no quota. */
  quota: Type.Number(),
  /** The user's scope and its trash, in bytes (as measured at most a short while ago). */
  used: Type.Number(),
});
export type QuotaUse = Static<typeof QuotaUse>;
