import { setFlagsFromString } from 'node:v8';
import { nodeWasGiven } from './node-flags.ts';

/**
 * Turns off Maglev, V8's middle-tier optimising compiler, unless node was given the flag either
 * way: a hot function then goes from its baseline code (Sparkplug) to TurboFan without a Maglev
 * compile in between.
 *
 * Why: the memory a gateway keeps. Maglev compiles the gateway's hot functions while it warms up,
 * and again after deoptimisations; the memory those compiles take from `malloc` is kept by glibc
 * and stayed resident for the life of the process. At 64 connections on a saturated core
 * (`bench/node-options-ab.ts`, 2026-12-01, five alternated pairs non-streamed, seven streamed) the
 * peak RSS read 297–337 → 267–277 MB non-streamed and 308–353 → 262–300 streamed, with V8's own
 * heap unchanged (`bench/wide-peak.ts`: glibc's main arena 76 → 55 MB, other anonymous memory
 * 193 → 152).
 * The functions a request runs are called thousands of times and reach TurboFan either way (the
 * event loop's instructions a request stay within their spread from one process to the next): CPU
 * per request within the VM's noise against the 50 ms upstream, ~5 % more saturated.
 * V8 reads the flag at each tiering decision, so it takes effect set here, before the gateway's
 * modules load.
 */
export function turnOffMaglev(): boolean {
  if (nodeWasGiven('maglev')) return false;
  setFlagsFromString('--no-maglev');
  return true;
}
