// Headless Debian Chromium through playwright-core (which downloads no browser).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export async function withPage(use) {
  const profile = await mkdtemp(join(tmpdir(), 'retryplan-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    return await use(page, errors);
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

/** Opens `url` and waits for the page to set window.__result. */
export async function resultOf(page, url, timeout = 30000) {
  await page.goto(url);
  await page.waitForFunction(() => window.__result !== undefined, null, { timeout });
  return page.evaluate(() => window.__result);
}
