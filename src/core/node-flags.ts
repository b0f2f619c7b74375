/** node's own arguments: those it was started with, then NODE_OPTIONS' */
export function nodeArgs(argv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  return [...argv, ...nodeOptions.split(/\s+/).filter((arg) => arg !== '')];
}

/**
 * Whether node was given the V8 flag `name` (dashes), in either sense and spelling:
 * `--name`, `--name=…`, `--no-name`, with `_` for any `-` as V8 accepts. A setting the gateway
 * makes for itself stands back when the operator chose one.
 */
export function nodeWasGiven(name: string, args: readonly string[] = nodeArgs()): boolean {
  const pattern = new RegExp(`^--(?:no[-_])?${name.replaceAll('-', '[-_]')}(?:=|$)`);
  return args.some((arg) => pattern.test(arg));
}
