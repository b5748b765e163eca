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

/** `data` of the users modify envelope (api.md §3): types are checked, presence per `which`. */
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
});
export type UserInput = Static<typeof UserInput>;

/** Body of POST /api/users and PUT /api/users/{id} (api.md §3 "Modify envelope"). */
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
 * Body of PUT /api/settings (api.md §4): a top-level field left out reads as its zero value;
 * lists may be null; nested objects are complete. authMethod and unknown fields are ignored.
 */
export const SettingsInput = Type.Object({
  signup: Type.Optional(Type.Boolean()),
  hideLoginButton: Type.Optional(Type.Boolean()),
  createUserDir: Type.Optional(Type.Boolean()),
  minimumPasswordLength: Type.Optional(Type.Integer({ minimum: 0, maximum: 1024 })),
  userHomeBasePath: Type.Optional(Type.String()),
  defaults: Type.Optional(Type.Object({ ...UserDefaults.properties, commands: NullableList(Type.String()) })),
  rules: Type.Optional(NullableList(RuleInput)),
  branding: Type.Optional(Branding),
  tus: Type.Optional(TusSettings),
  shell: Type.Optional(NullableList(Type.String())),
  commands: Type.Optional(Type.Union([Type.Record(Type.String(), NullableList(Type.String())), Type.Null()])),
});
export type SettingsInput = Static<typeof SettingsInput>;

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

/** A share link as every share endpoint returns it (api.md §16.0); never a password, hash or token (S43). */
export const Share = Type.Object({
  hash: Type.String(),
  path: Type.String(),
  userID: Type.Integer(),
  expire: Type.Integer(),
  hasPassword: Type.Boolean(),
});
export type Share = Static<typeof Share>;

/** Body of POST /api/share/{path}; checked further by the server (S42). */
export const ShareCreateRequest = Type.Object({
  expires: Type.Optional(Type.String()),
  unit: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
});
export type ShareCreateRequest = Static<typeof ShareCreateRequest>;
