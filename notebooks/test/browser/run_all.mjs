// Cell > Run All in an opened Jupyter Notebook page, as a student runs a lesson: waits for the kernel, runs every
// cell, and returns once no cell is left running (Run All marks them all In [*] at once) and the kernel is idle.
// Used by lessons.mjs (one live lesson) and hub.mjs (students of the lab's hub).
export async function runAll(page, timeoutMs) {
  await page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 120_000 });
  await page.click('#celllink');
  await page.click('#run_all_cells');
  await page.waitForFunction(() => !Array.from(document.querySelectorAll('.input_prompt'))
    .some(p => p.textContent.includes('*')), null, { timeout: timeoutMs, polling: 500 });
  await page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 60_000 });
}
