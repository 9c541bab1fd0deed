/** The CLI's commands and options: `npm run rondo -- --help`, `npm run rondo -- <command> --help`. */
import commands from './cli-commands.json' with { type: 'json' };

export interface CliOption {
  name: string;
  value?: string;
  required?: boolean;
  help: string;
}

export interface CliCommand {
  summary: string;
  options: CliOption[];
  example: string;
}

/** The commands, declared as data in `cli-commands.json`. */
export const COMMANDS: Record<string, CliCommand> = commands;

const ENV_NOTE = 'The database is DATABASE_URL, or the embedded one under DATA_DIR (default ./.data): use the same as the server.';

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return ['Usage: npm run rondo -- <command> [options]', '', 'Commands:', ...lines, '', 'npm run rondo -- <command> --help shows its options.', ENV_NOTE].join('\n');
}

export function commandHelp(name: string): string {
  const c = COMMANDS[name]!;
  const flag = (o: CliOption) => `--${o.name}${o.value ? ` ${o.value}` : ''}`;
  const width = Math.max(10, ...c.options.map((o) => flag(o).length));
  const opts = c.options.map((o) => `  ${flag(o).padEnd(width)}  ${o.help}${o.required ? ' (required)' : ''}`);
  return [
    `Usage: npm run rondo -- ${name}${c.options.map((o) => (o.required ? ` ${flag(o)}` : ` [${flag(o)}]`)).join('')}`,
    '',
    c.summary,
    '',
    'Options:',
    ...opts,
    `  ${'--help'.padEnd(width)}  show this help`,
    '',
    `Example: npm run rondo -- ${c.example}`,
    ENV_NOTE,
  ].join('\n');
}

/**
 * The warning printed when a command is about to create a new embedded database: with no
 * DATABASE_URL and no cluster under DATA_DIR yet, nothing else (no server) can be using it.
 */
export function newDatabaseWarning(databaseUrl: string | null, dataDir: string, hasCluster: (dataDir: string) => boolean): string | null {
  if (databaseUrl || hasCluster(dataDir)) return null;
  return (
    `warning: no embedded database under ${dataDir} yet: this command creates a new one, which no server uses.\n` +
    '         If your server runs with another DATA_DIR (or DATABASE_URL), set the same here.'
  );
}
