// A lesson's page in Jupyter Notebook, for lessons.mjs (one live lesson) and hub.mjs (students of the lab's hub).
// runAll: Cell > Run All, as a student runs a lesson: waits for the kernel, runs every cell, and returns once no
// cell is left running (Run All marks them all In [*] at once) and the kernel is idle.
export async function runAll(page, timeoutMs) {
  await page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 120_000 });
  await page.click('#celllink');
  await page.click('#run_all_cells');
  await page.waitForFunction(() => !Array.from(document.querySelectorAll('.input_prompt'))
    .some(p => p.textContent.includes('*')), null, { timeout: timeoutMs, polling: 500 });
  await page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 60_000 });
}

// What a page that failed says: a screenshot of it where it stopped, and one line naming the page, the error's first
// line and how long it had run.
export async function pageFailure(page, shot, name, error, t0) {
  await page.screenshot({ path: shot }).catch(() => {});
  return [`${name}: ${error.message.split('\n')[0]} (after ${((Date.now() - t0) / 1000).toFixed(0)} s)`];
}
