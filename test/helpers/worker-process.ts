/**
 * The workers in a process of their own, as deployed beside the API (the plain worker of
 * stall-worker.ts, no stall): started against a test app's database and data directory, ready
 * once it says so; stopped with SIGKILL (nothing of it outlives the test).
 */
import path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import type { TestApp } from './app';

export async function startWorkerProcess(app: TestApp): Promise<ChildProcess> {
  const worker = fork(path.resolve('test/helpers/stall-worker.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env, DATABASE_URL: app.svc.db.url, DATA_DIR: app.dataDir, LOG_LEVEL: 'error', QUEUE_POLL_SECONDS: '0.5',
      PASSWORD_HASH_MEMORY_KIB: '1024', ALLOW_PRIVATE_OUTBOUND: 'true', RONDO_STALL_PLAN: '{}', RONDO_STALL_AT: '',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('exit', (code) => reject(new Error(`worker process exited early (${code})`)));
    worker.on('message', (m: { ready?: boolean }) => m.ready && resolve());
  });
  worker.removeAllListeners('exit');
  return worker;
}

export async function stopWorkerProcess(worker: ChildProcess | undefined): Promise<void> {
  if (!worker) return;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGKILL');
  await exited;
}
