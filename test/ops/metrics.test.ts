/**
 * GET /metrics after a statement went through the whole pipeline: HTTP latency by route
 * template, queue depth, job durations by step, files finished, lines ingested.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, upload, waitFile, seedRates } from '../ingest/helpers';
import { parseMetrics, sample, type Sample } from './prom';

const FIXTURE = 'DistroKid_1693900000000_NovaLune.tsv'; // 24 lines
const STEPS = ['file.decompress', 'file.detect', 'file.ingest', 'royalty.allocate'];

describe('ops: Prometheus metrics', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Metrics', ['admin']);
    await seedRates(app, t.tenantId);
  });
  after(async () => app?.close());

  async function scrape(): Promise<Sample[]> {
    const r = await app.request('GET', '/metrics');
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return parseMetrics(r.text);
  }

  /** The file's last step finishes (and is counted) just after its status is visible: wait for the counters. */
  async function scrapeUntil(done: (s: Sample[]) => boolean): Promise<Sample[]> {
    for (let i = 0; i < 300; i++) {
      const s = await scrape();
      if (done(s)) return s;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('metrics never reached the expected state');
  }

  it('before any work: the series exist at zero; the queues are listed', async () => {
    const s = await scrape();
    assert.equal(sample(s, 'rondo_files_finished_total', { status: 'processed' }), 0);
    assert.equal(sample(s, 'rondo_files_finished_total', { status: 'failed' }), 0);
    assert.equal(sample(s, 'rondo_lines_ingested_total'), 0);
    for (const q of STEPS) for (const state of ['created', 'retry', 'active']) assert.equal(typeof sample(s, 'rondo_queue_jobs', { queue: q, state }), 'number', `${q} ${state}`);
    assert.ok((sample(s, 'rondo_process_resident_memory_bytes') ?? 0) > 0, 'process metrics');
  });

  it('after an upload is processed: files, lines, job durations by step, HTTP latency by route template', async () => {
    const up = await upload(app, t.users.admin!.token, FIXTURE, fixture(FIXTURE));
    assert.equal(up.status, 201, up.text);
    const id: string = up.body.data.id;
    const f = await waitFile(app, t.users.admin!.token, id, ['processed', 'failed'], 60_000);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.counts.rowsIngested, 24);

    const s = await scrapeUntil((x) => sample(x, 'rondo_files_finished_total', { status: 'processed' }) === 1 && sample(x, 'rondo_lines_ingested_total') === 24);
    assert.equal(sample(s, 'rondo_files_finished_total', { status: 'failed' }), 0);
    assert.equal(sample(s, 'rondo_lines_ingested_total'), 24);
    const lps = sample(s, 'rondo_ingest_last_lines_per_second')!;
    assert.ok(lps > 0 && Number.isFinite(lps), `lines/s ${lps}`);

    for (const q of STEPS) {
      assert.equal(sample(s, 'rondo_job_duration_seconds_count', { queue: q, outcome: 'completed' }), 1, q);
      const sum = sample(s, 'rondo_job_duration_seconds_sum', { queue: q, outcome: 'completed' })!;
      assert.ok(sum > 0 && sum < 60, `${q}: ${sum} s`);
      assert.equal(sample(s, 'rondo_queue_jobs', { queue: q, state: 'created' }), 0, `${q} has nothing waiting`);
    }

    const http = s.filter((x) => x.name === 'rondo_http_request_duration_seconds_count');
    assert.equal(sample(s, 'rondo_http_request_duration_seconds_count', { method: 'POST', route: '/file/royalty', status: '201' }), 1);
    assert.ok(sample(s, 'rondo_http_request_duration_seconds_count', { method: 'GET', route: '/file/:id', status: '200' })! >= 1);
    assert.ok(sample(s, 'rondo_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status: '200' })! >= 1);
    assert.ok(!http.some((x) => x.labels.route!.includes(id)), 'no raw URL (file id) in a route label');
  });

  it('an unknown path is counted under one "unmatched" route, not by its URL', async () => {
    await app.request('GET', '/no/such/path/123');
    await app.request('GET', '/no/such/path/456');
    const s = await scrape();
    assert.equal(sample(s, 'rondo_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }), 2);
    assert.ok(!s.some((x) => x.labels.route?.includes('/no/such')));
  });
});
