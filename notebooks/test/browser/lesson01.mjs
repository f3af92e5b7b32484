// The browser test: Jupyter Notebook on localhost, lesson 01 opened in headless Chromium (Debian's, driven by
// playwright-core), Cell > Run All through the menu, then wait for a "[rank 3]" output and an inline image, check
// that no cell shows an error, and save a screenshot.
//
//   node notebooks/test/browser/lesson01.mjs OUT_DIR        (./build.sh test runs it; JUPYTER_PATH set by build.sh)
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const notebooks = resolve(here, '..', '..');
const outDir = resolve(process.argv[2] || join(notebooks, '..', 'build', 'browser'));
const LESSON = '01-mpi-basics.ipynb';
const RUN_TIMEOUT_MS = 300_000;

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
  });
}

async function waitForServer(base, token, server, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the notebook server exited (${server.exitCode}) before it answered`);
    try {
      const r = await fetch(`${base}/api/status?token=${token}`);
      if (r.ok) return;
    } catch { /* not listening yet */ }
    await new Promise(r => setTimeout(r, 250));
  }
  throw new Error(`the notebook server did not answer within ${ms / 1000} s`);
}

async function stopServer(base, token, server) {
  try { // shut the kernels down first: they stop their rank engines
    const kernels = await (await fetch(`${base}/api/kernels?token=${token}`)).json();
    for (const k of kernels) await fetch(`${base}/api/kernels/${k.id}?token=${token}`, { method: 'DELETE' });
  } catch { /* the server is gone already */ }
  if (server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise(r => { const t = setTimeout(() => { server.kill('SIGKILL'); r(); }, 15_000); server.on('exit', () => { clearTimeout(t); r(); }); });
  }
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'mpi2nccl-browser-'));
  copyFileSync(join(notebooks, LESSON), join(work, LESSON)); // the lesson as a student gets it; autosave stays here
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const base = `http://127.0.0.1:${port}`;
  const args = ['notebook', '--no-browser', '--ip=127.0.0.1', `--port=${port}`, `--NotebookApp.token=${token}`,
    `--notebook-dir=${work}`, '--NotebookApp.open_browser=False'];
  if (process.getuid && process.getuid() === 0) args.push('--allow-root');
  const server = spawn('jupyter', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let serverLog = '';
  server.stderr.on('data', d => { serverLog += d; });
  let context;
  let failure = null;
  try {
    await waitForServer(base, token, server, 60_000);
    context = await chromium.launchPersistentContext(join(work, 'chromium-profile'), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
    });
    const page = context.pages()[0] || await context.newPage();
    await page.goto(`${base}/notebooks/${LESSON}?token=${token}`);
    await page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 120_000 });
    const t0 = Date.now();
    await page.click('#celllink');
    await page.click('#run_all_cells');
    await page.locator('.output_area pre', { hasText: '[rank 3]' }).first().waitFor({ timeout: RUN_TIMEOUT_MS });
    console.log(`[rank 3] output after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await page.locator('.output_area img').first().waitFor({ timeout: RUN_TIMEOUT_MS });
    console.log(`inline image after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // every cell done: no cell left with an In [*] prompt, and the kernel idle
    await page.waitForFunction(() => !Array.from(document.querySelectorAll('.input_prompt'))
      .some(p => p.textContent.includes('*')), null, { timeout: RUN_TIMEOUT_MS, polling: 500 });
    await page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 60_000 });
    console.log(`all cells done after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const errors = await page.locator('.output_error').count();
    const images = await page.locator('.output_area img').count();
    await page.locator('.output_area pre', { hasText: '[rank 3]' }).first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(outDir, 'lesson01-ranks.png') });
    const shot = join(outDir, 'lesson01.png');
    await page.locator('.output_area img').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot, fullPage: false });
    await page.screenshot({ path: join(outDir, 'lesson01-full.png'), fullPage: true });
    console.log(`${images} inline image(s), ${errors} error output(s); screenshot ${shot}`);
    if (errors > 0) {
      const text = await page.locator('.output_error').first().innerText();
      throw new Error(`a cell of ${LESSON} shows an error in the browser:\n${text}`);
    }
  } catch (e) {
    failure = e;
  } finally {
    if (context) await context.close();
    await stopServer(base, token, server);
    rmSync(work, { recursive: true, force: true });
  }
  if (failure) {
    console.error(`browser test failed: ${failure.message}\n--- notebook server log (last lines) ---\n${serverLog.split('\n').slice(-30).join('\n')}`);
    process.exit(1);
  }
}

main();
