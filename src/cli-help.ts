/** The CLI's commands and options: `npm run rondo -- --help`, `npm run rondo -- <command> --help`. */
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

export const COMMANDS: Record<string, CliCommand> = {
  'tenant:create': {
    summary: 'Create a workspace (tenant) and its owner; prints tenantId, workspaceId and the owner ids',
    options: [
      { name: 'name', value: 'NAME', required: true, help: 'workspace name' },
      { name: 'owner-email', value: 'EMAIL', required: true, help: "the owner's e-mail (an existing person is reused)" },
      { name: 'password', value: 'PASS', required: true, help: "the owner's password (at least 8 characters)" },
      { name: 'base-currency', value: 'CODE', help: 'ISO 4217 base currency (default USD)' },
      { name: 'domain', value: 'HOST', help: 'custom domain: requests to this Host need no currentWorkspace' },
      { name: 'super-admin', help: 'make the owner a super-admin' },
    ],
    example: `tenant:create --name "My Label" --owner-email me@label.example --password 'a long password' --base-currency EUR`,
  },
  'user:add': {
    summary: 'Add a person to a workspace with a role (creates the person when new)',
    options: [
      { name: 'tenant', value: 'ID', required: true, help: 'the integer tenant id' },
      { name: 'email', value: 'EMAIL', required: true, help: 'e-mail of the person' },
      { name: 'role', value: 'ROLE', required: true, help: 'guest | user | admin | owner' },
      { name: 'password', value: 'PASS', help: 'password (needed for a new person, at least 8 characters)' },
      { name: 'super-admin', help: 'make the person a super-admin' },
    ],
    example: `user:add --tenant 1 --email ana@label.example --password 'another password' --role user`,
  },
  'key:create': {
    summary: 'Create an API key (shown once): RWAK_ (workspace), RUAK_ (user) or GODK_ (super-admin)',
    options: [
      { name: 'kind', value: 'KIND', required: true, help: 'workspace | user | god' },
      { name: 'tenant', value: 'ID', help: 'tenant id (workspace and user keys)' },
      { name: 'user', value: 'TENANT_USER_ID', help: 'the tenant user id the key acts as (user keys)' },
      { name: 'name', value: 'TEXT', help: 'a label for the key' },
    ],
    example: 'key:create --kind workspace --tenant 1',
  },
  'key:revoke': {
    summary: 'Revoke an API key',
    options: [{ name: 'id', value: 'KEY_UUID', required: true, help: 'the id printed by key:create' }],
    example: 'key:revoke --id 0b6f5c1e-7f0a-4d7e-9d3a-2c1b0a9f8e7d',
  },
  'keys:rotate': {
    summary: 'Make a new current JWT or encryption key (needs no database): in a key file the old key stays listed; with keys in the environment it prints one to set',
    options: [
      { name: 'kind', value: 'KIND', required: true, help: 'jwt | encryption' },
      { name: 'file', value: 'PATH', help: 'the key file (default JWT_SECRET_FILE / ENCRYPTION_KEY_FILE, else under DATA_DIR/keys/)' },
    ],
    example: 'keys:rotate --kind encryption',
  },
  'secrets:reencrypt': {
    summary: 'Re-seal every stored secret under the current encryption key (after keys:rotate --kind encryption)',
    options: [],
    example: 'secrets:reencrypt',
  },
  migrate: {
    summary: 'Run the database migrations (every command does this first)',
    options: [],
    example: 'migrate',
  },
  'seed:demo': {
    summary: 'Create the demo workspace "Moonlight Records (demo)" with catalogue, rates and two statements (idempotent)',
    options: [],
    example: 'seed:demo',
  },
};

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
