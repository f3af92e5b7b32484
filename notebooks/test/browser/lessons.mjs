// The browser test: lessons opened in Jupyter Notebook on localhost in headless Chromium (Debian's, driven by
// playwright-core), as a student sees them, in two ways:
//
//   * rendered: the notebooks run_lessons.py executed (DIR/instructor/<lesson>.ipynb and DIR/student/<lesson>.ipynb,
//     signed as trusted, as a notebook the student ran is) are opened and inspected as they are, without running;
//   * live: a lesson's source is opened and run with Cell > Run All through the menu; once no cell is left running
//     and the kernel is idle, it is inspected the same way.
//
// For each: a full-page screenshot goes to OUT_DIR/<lesson>[-student].png (the viewport grows to the notebook's
// height), and the lesson fails when an output is wider than its place in the notebook column (a student would
// have to scroll sideways), when a cell shows an error, when a chart sits in a collapsed scroll box (Notebook 6
// folds a long output into .output_scroll; "scrolled": false in the cell's metadata keeps it open), or when an
// instructor version shows no image (every lesson draws at least one chart).
//
// Code lines wider than their editor are printed as notes: they do not fail the test.
//
// Cells are named by their position in the notebook, counting every cell from 1 (markdown too), and by their
// In [n] prompt. Everything runs on one notebook server, one page after the other. The copies live inside build/,
// so that a live lesson finds the recorded results/ folders by walking up from its folder, as from notebooks/.
//
//   node notebooks/test/browser/lessons.mjs OUT_DIR [--rendered DIR] [--live PREFIX] [PREFIX...]
//   (./build.sh test browser runs it: every lesson rendered, both versions, and lesson 01 live)
import { chromium } from 'playwright-core';
import { pageFailure, runAll } from './run_all.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const notebooks = resolve(here, '..', '..');

function parseArgs(argv) {
  const a = { outDir: null, rendered: null, live: [], only: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rendered') a.rendered = resolve(argv[++i]);
    else if (argv[i] === '--live') a.live.push(argv[++i]);
    else if (a.outDir === null) a.outDir = resolve(argv[i]);
    else a.only.push(argv[i]);
  }
  if (a.outDir === null) a.outDir = join(notebooks, '..', 'build', 'browser');
  if (!a.rendered && a.live.length === 0) a.live = a.only.length ? a.only : ['0']; // no mode named: run them live
  return a;
}
const ARGS = parseArgs(process.argv.slice(2));
const outDir = ARGS.outDir;
const SOURCES = readdirSync(notebooks).filter(f => /^0.*\.ipynb$/.test(f)).sort();
const LIVE = SOURCES.filter(f => ARGS.live.some(p => f.startsWith(p)));
const RENDERED = ARGS.rendered ? SOURCES.filter(f => ARGS.only.length === 0 || ARGS.only.some(p => f.startsWith(p))) : [];
const RUN_TIMEOUT_MS = 240_000;
const WIDTH = 1280; // a laptop screen; Notebook 6 draws its column 1140 px wide from 1200 px up
// Text that must reach the browser: rank threads print through the kernel too.
const EXPECT = { '01-mpi-basics': ['[rank 3]'] };

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

async function shutdownKernels(base, token) {
  try { // the kernels stop their rank engines when shut down
    const kernels = await (await fetch(`${base}/api/kernels?token=${token}`)).json();
    for (const k of kernels) await fetch(`${base}/api/kernels/${k.id}?token=${token}`, { method: 'DELETE' });
  } catch { /* the server is gone already */ }
}

async function stopServer(base, token, server) {
  await shutdownKernels(base, token);
  if (server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise(r => { const t = setTimeout(() => { server.kill('SIGKILL'); r(); }, 15_000); server.on('exit', () => { clearTimeout(t); r(); }); });
  }
}

// Runs in the page once every cell is done: what a student would stumble on, cell by cell.
function inspect() {
  const problems = [];
  const column = document.querySelector('#notebook-container').getBoundingClientRect();
  const cells = Array.from(document.querySelectorAll('#notebook-container > .cell'));
  const notes = [];
  let images = 0;
  const models = window.Jupyter ? Jupyter.notebook.get_cells() : [];
  cells.forEach((cell, i) => {
    const prompt = (cell.querySelector('.input_prompt')?.textContent || '').replace(/\s+/g, ' ').trim();
    const name = `cell ${i + 1}${prompt ? ` (${prompt.replace(/:$/, '')})` : ''}`;
    const editor = models[i] && models[i].cell_type === 'code' && models[i].code_mirror;
    if (editor) { // not a failure: code lines that need a sideways scroll in the editor
      const info = editor.getScrollInfo();
      if (info.width > info.clientWidth + 1) notes.push(`${name}: code ${info.width} px wide, its editor ${info.clientWidth} px`);
    }
    for (const img of cell.querySelectorAll('.text_cell_render img')) {   // a lesson's figure (notebooks/figures)
      if (!img.complete || img.naturalWidth === 0) problems.push(`${name}: a picture that does not load: ${img.getAttribute('src')}`);
    }
    for (const err of cell.querySelectorAll('.output_error')) {
      const first = (err.innerText || '').split('\n').find(l => l.trim()) || '(empty)';
      problems.push(`${name}: error output: ${first.trim()}`);
    }
    const charts = cell.querySelectorAll('.output_area img, .output_area svg');
    images += charts.length;
    if (charts.length > 0 && cell.querySelector('.output.output_scroll')) {
      problems.push(`${name}: ${charts.length} chart(s) inside a collapsed scroll box (.output_scroll); `
        + 'give the cell "scrolled": false in its metadata');
    }
    for (const out of cell.querySelectorAll('.output_subarea')) {
      // wider than its place: a sideways scroll bar in the output, or content past the column's right edge
      let widest = out.scrollWidth, room = out.clientWidth;
      for (const el of [out, ...out.querySelectorAll('*')]) {
        const r = el.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.right > column.right + 1) { widest = Math.max(widest, Math.ceil(r.right - out.getBoundingClientRect().left)); }
        const ox = getComputedStyle(el).overflowX;
        if (el !== out && (ox === 'auto' || ox === 'scroll') && el.scrollWidth > el.clientWidth + 1) {
          widest = Math.max(widest, el.scrollWidth + (r.left - out.getBoundingClientRect().left));
        }
      }
      if (widest > room + 1) {
        problems.push(`${name}: an output is ${Math.round(widest)} px wide, its place in the notebook column `
          + `${room} px (column ${Math.round(column.width)} px)`);
      }
    }
  });
  const height = Math.ceil(document.querySelector('#header').getBoundingClientRect().height
    + document.querySelector('#site').scrollHeight);
  return { problems, notes, images, cells: cells.length, height };
}

// One page: path (relative to the server's folder) opened; with live, Run All first. name: the screenshot's name.
async function openLesson(context, base, token, { path, name, stem, live, needsImage }) {
  const page = await context.newPage();
  await page.setViewportSize({ width: WIDTH, height: 900 });
  const t0 = Date.now();
  try {
    await page.goto(`${base}/notebooks/${path}?token=${token}`);
    if (live) {
      await runAll(page, RUN_TIMEOUT_MS);
    } else {
      await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded,
        null, { timeout: 60_000, polling: 100 });
      if (await page.evaluate(() => !Jupyter.notebook.trusted)) throw new Error('the notebook opened untrusted');
    }
    const took = (Date.now() - t0) / 1000;
    // images decoded, so that their sizes count
    await page.evaluate(() => Promise.all(Array.from(document.images).map(i => i.decode().catch(() => {}))));
    const { problems, notes, images, cells, height } = await page.evaluate(inspect);
    for (const n of notes) console.log(`  note, ${name}: ${n}`);
    if (needsImage && images === 0) problems.push('no image: every lesson draws at least one chart');
    for (const text of (live && EXPECT[stem]) || []) {
      if (await page.locator('.output_area pre', { hasText: text }).count() === 0) {
        problems.push(`no output shows "${text}"`);
      }
    }
    await page.setViewportSize({ width: WIDTH, height });
    const shot = join(outDir, `${name}.png`);
    await page.screenshot({ path: shot });
    console.log(`${name}: ${cells} cells ${live ? 'ran' : 'rendered'} in ${took.toFixed(1)} s, ${images} image(s),`
      + ` page ${height} px; ${shot}`);
    return problems.map(p => `${name}: ${p}`);
  } catch (e) {
    return pageFailure(page, join(outDir, `${name}.png`), name, e, t0);
  } finally {
    await page.close();
    await shutdownKernels(base, token);
  }
}

// The pages to open, in the work folder: rendered copies (signed as trusted) and live copies of the sources.
function preparePages(work) {
  const pages = [];
  if (RENDERED.length) {
    const copies = [];
    for (const kind of ['instructor', 'student']) {
      mkdirSync(join(work, 'rendered', kind), { recursive: true });
      cpSync(join(notebooks, 'figures'), join(work, 'rendered', kind, 'figures'), { recursive: true }); // their pictures
      for (const l of RENDERED) {
        const from = join(ARGS.rendered, kind, l);
        if (!existsSync(from)) throw new Error(`no executed ${kind} version of ${l} in ${ARGS.rendered}: run the lessons first`);
        copyFileSync(from, join(work, 'rendered', kind, l));
        copies.push(join(work, 'rendered', kind, l));
        const stem = basename(l, '.ipynb');
        pages.push({ path: `rendered/${kind}/${l}`, stem, name: kind === 'student' ? `${stem}-student` : stem,
          live: false, needsImage: kind === 'instructor' });
      }
    }
    // what `jupyter trust` does (Debian ships no jupyter-trust command): nbformat's notary, as Notebook uses it
    const sign = 'import sys, nbformat\nfrom nbformat.sign import NotebookNotary\nn = NotebookNotary()\n'
      + 'for f in sys.argv[1:]: n.sign(nbformat.read(f, as_version=4))';
    const trust = spawnSync('/usr/bin/python3', ['-c', sign, ...copies], { encoding: 'utf8' });
    if (trust.status !== 0) throw new Error(`signing the executed notebooks failed: ${trust.stderr}`);
  }
  if (LIVE.length) {
    mkdirSync(join(work, 'live'), { recursive: true });
    cpSync(join(notebooks, 'figures'), join(work, 'live', 'figures'), { recursive: true });
  }
  for (const l of LIVE) {
    copyFileSync(join(notebooks, l), join(work, 'live', l)); // autosave writes to the copies
    const stem = basename(l, '.ipynb');
    pages.push({ path: `live/${l}`, stem, name: `${stem}-live`, live: true, needsImage: true });
  }
  return pages;
}

async function main() {
  if (LIVE.length + RENDERED.length === 0) throw new Error(`no lesson matches ${[...ARGS.live, ...ARGS.only].join(' ')}`);
  mkdirSync(outDir, { recursive: true });
  const work = join(outDir, 'run'); // inside build/: live lessons find results/ by walking up
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const pages = preparePages(work);
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const base = `http://127.0.0.1:${port}`;
  const args = ['notebook', '--no-browser', '--ip=127.0.0.1', `--port=${port}`, `--NotebookApp.token=${token}`,
    `--notebook-dir=${work}`, '--NotebookApp.open_browser=False'];
  if (process.getuid && process.getuid() === 0) args.push('--allow-root');
  const server = spawn('jupyter', args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
  let serverLog = '';
  server.stderr.on('data', d => { serverLog += d; });
  let context;
  const problems = [];
  let failure = null;
  const t0 = Date.now();
  try {
    await waitForServer(base, token, server, 60_000);
    context = await chromium.launchPersistentContext(join(work, 'chromium-profile'), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: WIDTH, height: 900 },
    });
    for (const p of pages) problems.push(...await openLesson(context, base, token, p));
  } catch (e) {
    failure = e;
  } finally {
    if (context) await context.close();
    await stopServer(base, token, server);
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`${RENDERED.length} lesson(s) rendered (both versions), ${LIVE.length} run live,`
    + ` in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (failure || problems.length > 0) {
    if (failure) console.error(`browser test failed: ${failure.message}`);
    if (problems.length > 0) console.error(`browser test failed:\n  ${problems.join('\n  ')}`);
    console.error(`--- notebook server log (last lines) ---\n${serverLog.split('\n').slice(-30).join('\n')}`);
    process.exit(1);
  }
}

main();
