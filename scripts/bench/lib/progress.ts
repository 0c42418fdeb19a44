/**
 * @module One progress line on stderr while the bench runs: rewritten in place on a terminal,
 * one line per step otherwise (CI logs), never on stdout so that results can be piped.
 */

/** Reports what the bench is doing now. */
export interface Progress {
  /** Names the current step, e.g. `throughput c=10 round 2/3: floor`. */
  step(text: string): void;
  /** Ends the line; call once at the end. */
  done(text: string): void;
}

/**
 * A progress line on `process.stderr`, prefixed with the seconds since it was created.
 *
 * @example
 * const progress = createProgress();
 * progress.step("bundling workers");
 */
export function createProgress(quiet = false): Progress {
  const started = performance.now();
  const tty = process.stderr.isTTY === true;
  const stamp = () => `[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s]`;
  const write = (text: string, final: boolean) => {
    if (quiet) return;
    if (tty) process.stderr.write(`\r\x1b[2K${stamp()} ${text}${final ? "\n" : ""}`);
    else process.stderr.write(`${stamp()} ${text}\n`);
  };
  return { step: (text) => write(text, false), done: (text) => write(text, true) };
}
