import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type Report } from './analyze.js';
import { escapeHtml, renderHtml } from './render-html.js';
import { bigSession, threePlugins } from './test-support.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];
const artifacts = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));

/** The part of playwright-core's API this test uses. */
interface ChromiumLauncher {
  launch(options: { executablePath: string; args: string[] }): Promise<{
    newPage(options: { viewport: { width: number; height: number } }): Promise<PageLike>;
    close(): Promise<void>;
  }>;
}
interface LocatorLike {
  count(): Promise<number>;
  boundingBox(): Promise<{ x: number; y: number; width: number; height: number } | null>;
  getAttribute(name: string): Promise<string | null>;
  innerText(): Promise<string>;
  isVisible(): Promise<boolean>;
  all(): Promise<LocatorLike[]>;
}
interface PageLike {
  on(event: 'console', listener: (message: { type(): string; text(): string }) => void): void;
  on(event: 'pageerror', listener: (error: Error) => void): void;
  on(event: 'request', listener: (request: { url(): string }) => void): void;
  goto(url: string): Promise<unknown>;
  locator(selector: string): LocatorLike;
  screenshot(options: { path: string; fullPage: boolean }): Promise<unknown>;
}

let workDir: string;
let report: Report;
let html: string;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'hookwise-html-'));
  report = await buildReport(bigSession, { projectDir: workDir, config: await threePlugins() });
  html = renderHtml(report);
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('the HTML page as text', () => {
  it('is self-contained: no script, no external resource', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).toContain("default-src 'none'");
  });

  it('escapes what comes from the transcript', () => {
    const hostile: Report = {
      ...report,
      transcript: '/tmp/<img src=x onerror=alert(1)>.jsonl',
      suggestions: [
        {
          line: 1,
          eventLine: 1,
          point: 'tool:after',
          kind: 'other',
          reason: '</td><script>alert(1)</script>',
          contextTokens: null,
          contextWindow: null,
          contextWindowAssumed: false,
          toolCalls: 0,
        },
      ],
      compactions: [{ ...report.compactions[0]!, preserved: ['"><svg onload=alert(1)>'], instructions: '</pre><script>x</script>' }],
    };
    const page = renderHtml(hostile);
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('"><svg onload');
    expect(page).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(escapeHtml(`a&b<c>"d'\u001b[31m`)).toBe('a&#38;b&#60;c&#62;&#34;d&#39;');
  });

  it('has one marker per suggestion and per compaction', () => {
    expect(html.match(/class="marker marker-suggestion"/g)).toHaveLength(report.suggestions.length);
    expect(html.match(/class="marker marker-compaction"/g)).toHaveLength(report.compactions.length);
  });
});

describe('the HTML page in headless Chromium', () => {
  const haveChromium = existsSync(CHROMIUM);
  if (!haveChromium && process.env['CI']) {
    it('needs Chromium in CI', () => {
      expect.fail(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`);
    });
    return;
  }
  if (!haveChromium) console.warn(`skipping the browser check: ${CHROMIUM} is missing (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  it.skipIf(!haveChromium)('draws the chart, the markers and the tables without console errors', async () => {
    let chromium: ChromiumLauncher;
    try {
      // By name at run time: the browser check is optional where playwright-core is not installed.
      const name = 'playwright-core';
      ({ chromium } = (await import(/* @vite-ignore */ name)) as { chromium: ChromiumLauncher });
    } catch (error) {
      if (process.env['CI']) throw error;
      console.warn(`skipping the browser check: playwright-core is not installed (${(error as Error).message})`);
      return;
    }
    const file = path.join(workDir, 'report.html');
    await writeFile(file, html);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1120, height: 1000 } });
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) problems.push(`network request: ${request.url()}`);
      });
      await page.goto(pathToFileURL(file).href);

      // The cost chart: both curves drawn across the page.
      for (const selector of ['path.cost-curve', 'path.cost-prune-curve']) {
        expect(await page.locator(selector).count()).toBe(1);
        expect((await page.locator(selector).boundingBox())!.width).toBeGreaterThan(500);
      }
      const curve = page.locator('path.context-curve');
      expect(await curve.count()).toBe(1);
      const box = await curve.boundingBox();
      expect(box!.width).toBeGreaterThan(500);
      expect(box!.height).toBeGreaterThan(50);
      const points = ((await curve.getAttribute('d')) ?? '').split(/[ML]/).filter((part) => part.trim() !== '');
      expect(points).toHaveLength(report.timeline.length);
      expect(await page.locator('path.prune-curve').count()).toBe(1);
      expect(await page.locator('line.window-line').getAttribute('stroke-dasharray')).toBeTruthy();

      expect(await page.locator('.marker-suggestion').count()).toBe(report.suggestions.length);
      expect(await page.locator('.marker-compaction').count()).toBe(1);
      expect(await page.locator('#compaction-1').getAttribute('data-line')).toBe('1481');
      for (const marker of await page.locator('.marker-suggestion circle').all()) expect(await marker.isVisible()).toBe(true);
      expect(await page.locator('#suggestions tbody tr').count()).toBe(report.suggestions.length);
      expect(await page.locator('#compactions tbody tr').count()).toBe(1);
      expect(await page.locator('#compactions').innerText()).toContain('142,431');

      expect(problems).toEqual([]);
      await mkdir(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, 'report.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
