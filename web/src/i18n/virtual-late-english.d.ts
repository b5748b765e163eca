// web/lateEnglish.ts: English's late namespaces (settings, users) as a module of their own.
declare module 'virtual:late-english' {
  type Tree = { [key: string]: string | Tree };
  const late: Record<string, Tree>;
  export default late;
}
