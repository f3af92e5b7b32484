// Students of the lab's hub in headless Chromium, at the same time: each logs in through the hub's login page
// with their Unix account, gets their own server, and runs lessons in it with Cell > Run All. Every run must end
// with no error output, a chart, and every check's verdict right (the lessons given to the students here are solved).
//
//   node notebooks/test/browser/hub.mjs URL OUT_DIR USER:LESSON[,LESSON...] ... [!USER ...]
// (passwords: HUB_PASSWORD_<USER>, '-' as '_'). !USER: an account with the right password that must not get in.
//
// e.g. node notebooks/test/browser/hub.mjs http://127.0.0.1:18000 build/lab alice:01-mpi-basics,03-data-parallel-mpi
import { chromium } from 'playwright-core';
import { pageFailure, runAll } from './run_all.mjs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const RUN_TIMEOUT_MS = 600_000;
const [base, outDir, ...plans] = process.argv.slice(2);
if (!base || !outDir || plans.length === 0) {
  console.error('usage: hub.mjs URL OUT_DIR USER:LESSON[,LESSON...] ...');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

function passwordOf(user) {
  const p = process.env[`HUB_PASSWORD_${user.replace(/-/g, '_')}`];
  if (!p) throw new Error(`no password for ${user} in HUB_PASSWORD_${user.replace(/-/g, '_')}`);
  return p;
}

// An account that may not use the lab (not a student) gives its right password and must stay out.
async function refused(context, user) {
  const page = await context.newPage();
  try {
    await page.goto(`${base}/hub/login`);
    await page.fill('#username_input', user);
    await page.fill('#password_input', passwordOf(user));
    await page.click('#login_submit');
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(2000);
    const url = page.url();
    const inside = new RegExp(`/user/${user}/`).test(url) || /\/hub\/(spawn|home)/.test(url);
    console.log(`${user}: ${inside ? 'got in' : 'refused'} (${url})`);
    return inside ? [`${user}: not a student, and got in (${url})`] : [];
  } finally {
    await page.close();
  }
}

async function logIn(context, user) {
  const page = await context.newPage();
  await page.goto(`${base}/hub/login`);
  await page.fill('#username_input', user);
  await page.fill('#password_input', passwordOf(user));
  await page.click('#login_submit');
  // the hub starts the student's server, then sends the browser to it
  await page.waitForURL(new RegExp(`/user/${user}/tree`), { timeout: 120_000 });
  await page.close();
}

// One lesson run with Run All in the student's server; returns the problems found.
async function runLesson(context, user, lesson) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1200, height: 900 });
  const t0 = Date.now();
  const name = `${user}-${lesson}`;
  try {
    await page.goto(`${base}/user/${user}/notebooks/${lesson}.ipynb`);
    await runAll(page, RUN_TIMEOUT_MS);
    const seen = await page.evaluate(() => ({
      errors: Array.from(document.querySelectorAll('.output_error')).map(e => (e.innerText || '').split('\n')[0]),
      images: document.querySelectorAll('.output_area img, .output_area svg').length,
      // a check's verdict: \u2714 (right) or \u2718 (wrong), one per rank
      right: (document.querySelector('#notebook-container').innerText.match(/\u2714/g) || []).length,
      wrong: (document.querySelector('#notebook-container').innerText.match(/\u2718/g) || []).length,
      kernel: Jupyter.notebook.kernel.name,
    }));
    await page.screenshot({ path: join(outDir, `${name}.png`), fullPage: true });
    const took = ((Date.now() - t0) / 1000).toFixed(1);
    console.log(`${name}: ran in ${took} s (kernel ${seen.kernel}), ${seen.images} image(s), ${seen.right} right and ${seen.wrong} wrong check verdict(s),`
      + ` ${seen.errors.length} error(s)`);
    const problems = seen.errors.map(e => `error output: ${e}`);
    if (seen.images === 0) problems.push('no chart');
    if (seen.right === 0) problems.push('no check said right');
    if (seen.wrong > 0) problems.push(`${seen.wrong} check verdict(s) said wrong`);
    return problems.map(p => `${name}: ${p}`);
  } catch (e) {
    return pageFailure(page, join(outDir, `${name}.png`), name, e, t0);
  } finally {
    await page.close();
  }
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
let problems = [];
try {
  const outsiders = plans.filter(p => p.startsWith('!')).map(p => p.slice(1));
  const students = plans.filter(p => !p.startsWith('!')).map(p => {
    const [user, lessons] = p.split(':');
    return { user, lessons: (lessons || '').split(',').filter(Boolean) };
  });
  // Each student's lessons one after the other, the students at the same time.
  const results = await Promise.all(students.map(async ({ user, lessons }) => {
    const context = await browser.newContext();
    try {
      await logIn(context, user);
      const found = [];
      for (const lesson of lessons) found.push(...await runLesson(context, user, lesson));
      return found;
    } catch (e) {
      return [`${user}: ${e.message.split('\n')[0]}`];
    } finally {
      await context.close();
    }
  }));
  problems = results.flat();
  for (const user of outsiders) {
    const context = await browser.newContext();
    try {
      problems.push(...await refused(context, user));
    } finally {
      await context.close();
    }
  }
} finally {
  await browser.close();
}
if (problems.length) {
  console.error(`FAIL: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`ok: ${plans.length - plans.filter(p => p.startsWith('!')).length} student(s) logged in through the hub and ran their lessons at the same time`);
