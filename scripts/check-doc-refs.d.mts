/** Types of check-doc-refs.mjs, for the unit test that runs it. */
export declare const SCANNED: string[];
export declare function readDocs(root: string): { pages: Map<string, Set<string>>; ids: Map<string, string> };
export declare function checkDocRefs(root: string): { problems: string[]; refs: number };
