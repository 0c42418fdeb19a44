/**
 * @module Where things are: the repository root (this file is `scripts/bench/lib/paths.ts`) and
 * the files the bench measures.
 */
import { fileURLToPath } from "node:url";

/** Absolute path of the repository root. */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url)).replace(/\/$/, "");

/** Absolute path of a file given relative to the repository root. */
export function fromRoot(relative: string): string {
  return `${repoRoot}/${relative}`;
}
