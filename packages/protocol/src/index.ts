/**
 * The API's JSON (api.md), as TypeBox schemas plus their static types. The server validates with
 * the schemas; the web client imports the types only.
 */
import { Type, type Static } from 'typebox';

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

export const Sorting = Type.Object({ by: Type.String(), asc: Type.Boolean() });
export type Sorting = Static<typeof Sorting>;

export const Rule = Type.Object({
  regex: Type.Boolean(),
  allow: Type.Boolean(),
  path: Type.String(),
  regexp: Type.Union([Type.Object({ raw: Type.String() }), Type.Null()]),
});
export type Rule = Static<typeof Rule>;

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
});
export type User = Static<typeof User>;

/** What the JWT's `user` claim carries (api.md §1). */
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
  'perm', 'commands', 'sorting', 'rules', 'hideDotfiles', 'dateFormat', 'aceEditorTheme',
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
});
export type Settings = Static<typeof Settings>;

export type AuthMethod = 'json' | 'proxy' | 'hook' | 'noauth';

/** window.FileBrowser, injected into the page (api.md §5). */
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
  ResizePreview: boolean;
  EnableExec: boolean;
  TusSettings: TusSettings;
  HideLoginButton: boolean;
}
