/**
 * The API's JSON (docs/api.md), as TypeBox schemas plus their static types. The server validates with
 * the schemas; the web client imports the types only.
 */
import { Type, type Static } from 'typebox';
import { Sorting } from './resources.js';

export * from './resources.js';
export * from './signin.js';
export * from './jobs.js';
export * from './trash.js';
export * from './file-index.js';
export * from './folder-usage.js';

export const Permissions = Type.Object({
  admin: Type.Boolean(),
  execute: Type.Boolean(),
  create: Type.Boolean(),
  rename: Type.Boolean(),
  modify: Type.Boolean(),
  delete: Type.Boolean(),
  share: Type.Boolean(),
  download: Type.Boolean(),
});
export type Permissions = Static<typeof Permissions>;
export const PERMISSION_NAMES = ['admin', 'execute', 'create', 'rename', 'modify', 'delete', 'share', 'download'] as const;

export const Rule = Type.Object({
  regex: Type.Boolean(),
  allow: Type.Boolean(),
  path: Type.String(),
  regexp: Type.Union([Type.Object({ raw: Type.String() }), Type.Null()]),
});
export type Rule = Static<typeof Rule>;

/** Coffer: a byte quota (docs/api.md §3.1); 0 = none. At most 2^53 − 1 so that it survives JSON. */
export const Quota = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'bytes the scope and its trash may hold; 0 = no quota' });

/** User as the API returns it (`password` always ""). */
export const User = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  password: Type.String(),
  scope: Type.String(),
  locale: Type.String(),
  lockPassword: Type.Boolean(),
  viewMode: Type.String(),
  singleClick: Type.Boolean(),
  redirectAfterCopyMove: Type.Boolean(),
  perm: Permissions,
  commands: Type.Array(Type.String()),
  sorting: Sorting,
  rules: Type.Array(Rule),
  hideDotfiles: Type.Boolean(),
  dateFormat: Type.Boolean(),
  aceEditorTheme: Type.String(),
  /** Coffer (added after File Browser's fields): the byte quota, 0 = none. */
  quota: Quota,
});
export type User = Static<typeof User>;

/** What the JWT's `user` claim carries (docs/api.md §2.1). */
export interface TokenUser {
  id: number;
  locale: string;
  viewMode: string;
  singleClick: boolean;
  redirectAfterCopyMove: boolean;
  perm: Permissions;
  commands: string[];
  lockPassword: boolean;
  hideDotfiles: boolean;
  dateFormat: boolean;
  username: string;
  aceEditorTheme: string;
}
export interface TokenPayload {
  user: TokenUser;
  iss: string;
  iat: number;
  exp: number;
  jti: string;
}

export const USER_FIELDS = [
  'username', 'password', 'scope', 'locale', 'lockPassword', 'viewMode', 'singleClick', 'redirectAfterCopyMove',
  'perm', 'commands', 'sorting', 'rules', 'hideDotfiles', 'dateFormat', 'aceEditorTheme', 'quota',
] as const;
export type UserField = (typeof USER_FIELDS)[number];

export const UserDefaults = Type.Object({
  scope: Type.String(),
  locale: Type.String(),
  viewMode: Type.String(),
  singleClick: Type.Boolean(),
  redirectAfterCopyMove: Type.Boolean(),
  sorting: Sorting,
  perm: Permissions,
  commands: Type.Array(Type.String()),
  hideDotfiles: Type.Boolean(),
  dateFormat: Type.Boolean(),
  aceEditorTheme: Type.String(),
  /** Coffer: the quota new users get (docs/api.md §4.1); 0 = none. */
  quota: Quota,
});
export type UserDefaults = Static<typeof UserDefaults>;

export const Branding = Type.Object({
  name: Type.String(),
  disableExternal: Type.Boolean(),
  disableUsedPercentage: Type.Boolean(),
  files: Type.String(),
  theme: Type.String(),
  color: Type.String(),
});
export type Branding = Static<typeof Branding>;

export const TusSettings = Type.Object({ chunkSize: Type.Integer({ minimum: 0 }), retryCount: Type.Integer({ minimum: 0 }) });
export type TusSettings = Static<typeof TusSettings>;

/** Coffer's WebDAV settings (docs/api.md §4.1, §21). */
export const WebdavSettings = Type.Object({
  /** macOS Finder's `._*` AppleDouble and `.DS_Store` files are answered as stored but never stored, nor listed. */
  refuseMacMetadata: Type.Boolean(),
});
export type WebdavSettings = Static<typeof WebdavSettings>;

export const EVENT_NAMES = ['save', 'copy', 'rename', 'upload', 'delete'] as const;
export type EventName = (typeof EVENT_NAMES)[number];
export const HOOK_KEYS = EVENT_NAMES.flatMap((e) => [`before_${e}`, `after_${e}`]);

export const Settings = Type.Object({
  signup: Type.Boolean(),
  hideLoginButton: Type.Boolean(),
  createUserDir: Type.Boolean(),
  minimumPasswordLength: Type.Integer({ minimum: 0 }),
  userHomeBasePath: Type.String(),
  defaults: UserDefaults,
  authMethod: Type.String(),
  rules: Type.Array(Rule),
  branding: Branding,
  tus: TusSettings,
  shell: Type.Array(Type.String()),
  commands: Type.Record(Type.String(), Type.Array(Type.String())),
  webdav: WebdavSettings,
});
export type Settings = Static<typeof Settings>;

/** A JSON list that File Browser's decoder also accepts as `null` (read as `[]`). */
const NullableList = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Union([Type.Array(item), Type.Null()]);

/** A rule as clients send it: `regexp` may be left out or null (path rules from scripts). */
export const RuleInput = Type.Object({
  regex: Type.Boolean(),
  allow: Type.Boolean(),
  path: Type.String(),
  regexp: Type.Optional(Type.Union([Type.Object({ raw: Type.String() }), Type.Null()])),
});
export type RuleInput = Static<typeof RuleInput>;

/** `data` of the users modify envelope (docs/api.md §3.2): types are checked, presence per `which`. */
export const UserInput = Type.Object({
  id: Type.Optional(Type.Integer()),
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
  locale: Type.Optional(Type.String()),
  lockPassword: Type.Optional(Type.Boolean()),
  viewMode: Type.Optional(Type.String()),
  singleClick: Type.Optional(Type.Boolean()),
  redirectAfterCopyMove: Type.Optional(Type.Boolean()),
  perm: Type.Optional(Permissions),
  commands: Type.Optional(NullableList(Type.String())),
  sorting: Type.Optional(Sorting),
  rules: Type.Optional(NullableList(RuleInput)),
  hideDotfiles: Type.Optional(Type.Boolean()),
  dateFormat: Type.Optional(Type.Boolean()),
  aceEditorTheme: Type.Optional(Type.String()),
  quota: Type.Optional(Quota),
});
export type UserInput = Static<typeof UserInput>;

/** Body of POST /api/users and PUT /api/users/{id} (docs/api.md §3.2). */
export const UserModifyRequest = Type.Object({
  what: Type.Optional(Type.String()),
  which: Type.Optional(NullableList(Type.String())),
  current_password: Type.Optional(Type.String()),
  data: Type.Optional(UserInput),
});
export type UserModifyRequest = Static<typeof UserModifyRequest>;

/** Body of DELETE /api/users/{id}. */
export const UserDeleteRequest = Type.Object({ current_password: Type.Optional(Type.String()) });
export type UserDeleteRequest = Static<typeof UserDeleteRequest>;

/** `which` names of PUT /api/users/{id}, matched exactly (S36). */
export const USER_WHICH_NAMES = ['all', ...USER_FIELDS] as const;

/**
 * Body of PUT /api/settings (docs/api.md §4.2): a top-level field left out reads as its zero value;
 * lists may be null; nested objects are complete. authMethod and unknown fields are ignored.
 */
export const SettingsInput = Type.Object({
  signup: Type.Optional(Type.Boolean()),
  hideLoginButton: Type.Optional(Type.Boolean()),
  createUserDir: Type.Optional(Type.Boolean()),
  minimumPasswordLength: Type.Optional(Type.Integer({ minimum: 0, maximum: 1024 })),
  userHomeBasePath: Type.Optional(Type.String()),
  defaults: Type.Optional(Type.Object({ ...UserDefaults.properties, commands: NullableList(Type.String()), quota: Type.Optional(Quota) })),
  rules: Type.Optional(NullableList(RuleInput)),
  branding: Type.Optional(Branding),
  tus: Type.Optional(TusSettings),
  shell: Type.Optional(NullableList(Type.String())),
  commands: Type.Optional(Type.Union([Type.Record(Type.String(), NullableList(Type.String())), Type.Null()])),
  /** Coffer's: left out (File Browser's clients and scripts), it keeps its default rather than a zero value. */
  webdav: Type.Optional(WebdavSettings),
});
export type SettingsInput = Static<typeof SettingsInput>;

export type AuthMethod = 'json' | 'proxy' | 'hook' | 'noauth' | 'oidc';

/** window.FileBrowser, injected into the page (docs/api.md §5.3). */
export interface ClientConfig {
  Name: string;
  DisableExternal: boolean;
  DisableUsedPercentage: boolean;
  Color: string;
  BaseURL: string;
  Version: string;
  StaticURL: string;
  Signup: boolean;
  NoAuth: boolean;
  AuthMethod: string;
  LogoutPage: string;
  LoginPage: boolean;
  CSS: boolean;
  ReCaptcha: boolean;
  ReCaptchaHost?: string;
  ReCaptchaKey?: string;
  Theme: string;
  EnableThumbs: boolean;
  /** Coffer: videos have thumbnails and posters (ffmpeg found at start, thumbnails on). */
  EnableVideoThumbs: boolean;
  ResizePreview: boolean;
  EnableExec: boolean;
  TusSettings: TusSettings;
  HideLoginButton: boolean;
  /** Coffer: the project's home page ("" = none), linked from the sidebar. */
  ProjectURL: string;
  /** Coffer: where users report problems ("" = none), the error toasts' "Report issue". */
  IssuesURL: string;
  /** Coffer: WebDAV is served at `<BaseURL>/dav/` (not `--disable-webdav`). */
  EnableWebDAV: boolean;
  /**
   * Coffer, only with the oidc auth method (docs/api.md §2.13): the provider's name for the
   * "Sign in with …" button and whether the password form is shown too.
   */
  OIDC?: { Name: string; PasswordLogin: boolean };
  /** Coffer: days a deleted item stays in the trash (`--trash-days`); 0 = the trash is off, deletes are final. */
  TrashDays: number;
}

/** A share link as every share endpoint returns it (docs/api.md §14.1); never a password, hash or token (S43). */
export const Share = Type.Object({
  hash: Type.String(),
  path: Type.String(),
  userID: Type.Integer(),
  expire: Type.Integer(),
  hasPassword: Type.Boolean(),
  kind: Type.Optional(Type.Literal('upload', { description: 'only on upload-only shares (docs/api.md §23); a normal share has no `kind`' })),
  upload: Type.Optional(
    Type.Object({
      message: Type.String({ description: 'shown to uploaders' }),
      maxFileSize: Type.Integer({ minimum: 0, description: 'bytes per file; 0 = no limit' }),
      maxFiles: Type.Integer({ minimum: 0, description: 'files in all; 0 = no limit' }),
      maxBytes: Type.Integer({ minimum: 0, description: 'bytes in all; 0 = no limit' }),
      files: Type.Integer({ minimum: 0, description: 'files received or arriving' }),
      bytes: Type.Integer({ minimum: 0, description: 'bytes received or arriving' }),
    }),
  ),
});
export type Share = Static<typeof Share>;

/** docs/api.md §23: the limits of an upload share, bounded so that sums stay exact integers. */
const UploadLimit = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 50, description }));
/** Longest owner's message to uploaders, in characters. */
export const UPLOAD_MESSAGE_MAX = 2000;

/** Body of POST /api/share/{path}; checked further by the server (S42). */
export const ShareCreateRequest = Type.Object({
  expires: Type.Optional(Type.String()),
  unit: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  kind: Type.Optional(Type.Union([Type.Literal('normal'), Type.Literal('upload')], { description: '"upload": an upload-only share of a folder (docs/api.md §23)' })),
  message: Type.Optional(Type.String({ maxLength: UPLOAD_MESSAGE_MAX, description: 'upload shares: shown to uploaders' })),
  maxFileSize: UploadLimit('upload shares: bytes per file; 0 or missing = no limit'),
  maxFiles: UploadLimit('upload shares: number of files; 0 or missing = no limit'),
  maxBytes: UploadLimit('upload shares: bytes in all; 0 or missing = no limit'),
});
export type ShareCreateRequest = Static<typeof ShareCreateRequest>;

/** GET /api/public/upload/{hash}: what an upload share's page shows (docs/api.md §23.2). */
export const PublicUploadShare = Type.Object({
  message: Type.String(),
  maxFileSize: Type.Integer({ minimum: 0, description: '0 = no limit' }),
  maxFiles: Type.Integer({ minimum: 0, description: '0 = no limit' }),
  maxBytes: Type.Integer({ minimum: 0, description: '0 = no limit' }),
  filesLeft: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null = no limit' }),
  bytesLeft: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null = no limit' }),
  token: Type.Optional(Type.String({ description: 'a share token, for a password-protected share (docs/api.md §15.3)' })),
});
export type PublicUploadShare = Static<typeof PublicUploadShare>;

/**
 * Body of POST /api/login (docs/api.md §2.4). The json and hook methods read it (S32); proxy and
 * noauth ignore it, so the server documents it without a schema check.
 */
export const LoginRequest = Type.Object({
  username: Type.String(),
  password: Type.String(),
  recaptcha: Type.Optional(Type.String({ description: 'the reCAPTCHA answer; File Browser sends ""' })),
  otp: Type.Optional(
    Type.String({ description: 'a TOTP code or a recovery code, for a user with a second factor (docs/api.md §2.12)' }),
  ),
  passkey: Type.Optional(
    Type.Object({}, { additionalProperties: true, description: 'a passkey assertion instead of `otp` (docs/api.md §2.13)' }),
  ),
});
export type LoginRequest = Static<typeof LoginRequest>;

/** Body of POST /api/signup (docs/api.md §2.8); every other field is ignored. */
export const SignupRequest = Type.Object({ username: Type.String(), password: Type.String() });
export type SignupRequest = Static<typeof SignupRequest>;
