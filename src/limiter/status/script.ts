/**
 * @module The status script: every algorithm's check, read-only (see `assembleStatusScript`). One
 * script for every mix of rules, like the multi-rule one, so the admin API keeps one SHA1 cached.
 */
import { assembleStatusScript } from "../assemble-script.ts";
import { algorithmSpecs } from "../catalog.ts";

/** Every algorithm's fragment, in the registry's order, behind the read-only main part. */
export const source = assembleStatusScript(Object.values(algorithmSpecs).map((algorithm) => algorithm.lua));
/** SHA1 of {@link source}, pinned; `npm run hash-scripts` prints a fresh one after an edit. */
export const sha1 = "5643ee86b363faca8fcf684a7959d03f137e6ed0";
