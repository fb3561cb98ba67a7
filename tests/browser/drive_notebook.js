// Open a notebook in JupyterLab (headless Chromium via playwright-core), run all cells,
// check the rendered canvas, optionally double-click a node, and write <out>.result.json.
// usage: node drive_notebook.js <config.json>   (config written by harness.py)
'use strict';
const fs = require('fs');
const { chromium } = require('playwright-core');

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const BACKGROUND = [0x0f, 0x14, 0x19]; // the map's clear colour (widgets/space_time_map.py BACKGROUND)

// Count pixels of a PNG (base64) that differ from the background, inside the page.
async function nonBackground(page, b64) {
  return page.evaluate(async ([data, bg]) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + data;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const px = g.getImageData(0, 0, c.width, c.height).data;
    let n = 0, x0 = c.width, y0 = c.height, x1 = -1, y1 = -1;
    for (let i = 0; i < px.length; i += 4) {
      if (Math.abs(px[i] - bg[0]) + Math.abs(px[i + 1] - bg[1]) + Math.abs(px[i + 2] - bg[2]) > 30) {
        n++;
        const p = i / 4, x = p % c.width, y = (p - x) / c.width;
        if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
      }
    }
    // The drawn extent (bounding box of non-background pixels), to tell a filled canvas from a clump.
    return { nonBackground: n, total: c.width * c.height, width: c.width, height: c.height, box: [x0, y0, x1, y1] };
  }, [b64, BACKGROUND]);
}

// Screen boxes of the visible label sprites, read from the three.js objects the page renders
// (through the notebook's widget manager), not from the kernel: what the browser actually draws.
async function labelBoxes(page, ids) {
  return page.evaluate(async (ids) => {
    const nb = window.jupyterapp.shell.currentWidget.content;
    let manager = null;
    for (const cell of nb.widgets) {
      for (const child of (cell.outputArea ? cell.outputArea.widgets : [])) {
        for (const w of (child.widgets || [])) if (!manager && w._manager) manager = await w._manager.promise;
      }
    }
    if (!manager) return { error: 'no widget manager found' };
    const obj = async (id) => { const m = await manager.get_model(id); if (m.initPromise) await m.initPromise; return m.obj; };
    const cam = await obj(ids.camera);
    const tan = Math.tan((cam.fov * Math.PI) / 360);
    const out = [];
    for (const id of ids.sprites) {
      const s = await obj(id);
      let shown = s.visible;
      for (let p = s.parent; p; p = p.parent) shown = shown && p.visible;
      if (!shown) continue;
      const v = s.getWorldPosition(s.position.clone());
      const inView = v.clone().applyMatrix4(cam.matrixWorldInverse).z < 0;
      v.project(cam);
      const cx = ((v.x + 1) / 2) * ids.width, cy = ((1 - v.y) / 2) * ids.height;
      const w = (s.scale.x * ids.height) / (2 * tan), h = (s.scale.y * ids.height) / (2 * tan);
      if (inView) out.push({ id, box: [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2] });
    }
    return { boxes: out };
  }, ids);
}

// Drag across the canvas (an orbit), one animation frame per step; returns ms per step.
async function orbit(page, canvas, steps) {
  const bb = await canvas.boundingBox();
  const x = bb.x + bb.width / 2, y = bb.y + bb.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  const t0 = Date.now();
  for (let i = 1; i <= steps; i++) {
    await page.mouse.move(x + (160 * i) / steps, y + (50 * i) / steps);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }
  const ms = (Date.now() - t0) / steps;
  await page.mouse.up();
  return ms;
}

// Run code in the notebook's kernel and return the text it printed.
async function kernelExec(page, code) {
  return page.evaluate(async (src) => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    let out = '';
    const future = kernel.requestExecute({ code: src, silent: false, store_history: false });
    future.onIOPub = (msg) => {
      if (msg.header.msg_type === 'stream') out += msg.content.text;
      if (msg.header.msg_type === 'error') out += 'ERROR ' + msg.content.ename + ': ' + msg.content.evalue + '\n';
    };
    await future.done;
    return out;
  }, code);
}

function parseProbe(text) {
  const line = text.split('\n').find((l) => l.startsWith('PROBE='));
  if (!line) throw new Error('probe printed no PROBE= line: ' + text.slice(0, 1000));
  return JSON.parse(line.slice('PROBE='.length));
}

(async () => {
  const browser = await chromium.launch({
    executablePath: cfg.chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  const logs = [];
  const result = { notebook: cfg.notebook };
  try {
    const ctx = await browser.newContext({ viewport: { width: cfg.viewport[0], height: cfg.viewport[1] } });
    const page = await ctx.newPage();
    page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
    // Time the first WebGL draw call after "run all": the first frame the map puts on screen.
    await page.addInitScript(() => {
      window.__firstDraw = null;
      for (const proto of [window.WebGLRenderingContext, window.WebGL2RenderingContext]) {
        if (!proto) continue;
        for (const fn of ['drawArrays', 'drawElements']) {
          const orig = proto.prototype[fn];
          proto.prototype[fn] = function (...a) {
            if (window.__runStart && window.__firstDraw === null) window.__firstDraw = performance.now();
            return orig.apply(this, a);
          };
        }
      }
    });
    const url = new URL(`${cfg.base}/lab/tree/${cfg.notebook}`);
    url.searchParams.set('token', cfg.token);
    url.searchParams.set('reset', '');
    const t0 = Date.now();
    await page.goto(url.toString(), { waitUntil: 'domcontentloaded', timeout: 120000 });
    await page.waitForFunction(() => {
      const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
      const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
      return k && k.status === 'idle';
    }, null, { timeout: 120000, polling: 250 });
    result.loadMs = Date.now() - t0;
    await page.evaluate(() => window.jupyterapp.shell.currentWidget.node.setAttribute('data-cur', '1'));

    const runAndWait = async (command) => {
      // Not awaited in the page: the command's promise spans the whole run; we poll for its end instead.
      await page.evaluate((cmd) => { window.__runStart = performance.now(); window.__runDone = false;
        window.jupyterapp.commands.execute(cmd).then(() => { window.__runDone = true; }); }, command);
      // Finished = the command settled, every code cell ran (distinct execution counts) and the kernel is idle.
      await page.waitForFunction(() => {
        const w = window.jupyterapp.shell.currentWidget;
        const counts = w.content.widgets.filter((c) => c.model.type === 'code').map((c) => c.model.executionCount);
        return window.__runDone && counts.every((n) => n !== null) && new Set(counts).size === counts.length
          && w.sessionContext.session.kernel.status === 'idle';
      }, null, { timeout: cfg.timeoutMs, polling: 250 });
    };
    const tRun = Date.now();
    if (cfg.timeLastCell) {
      // Everything but the last cell first; then time the last cell (the map) alone.
      await page.evaluate(() => { const w = window.jupyterapp.shell.currentWidget;
        w.content.activeCellIndex = w.content.widgets.length - 1; });
      await page.evaluate(() => window.jupyterapp.commands.execute('notebook:run-all-above'));
      await page.waitForFunction(() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle',
        null, { timeout: cfg.timeoutMs, polling: 250 });
      await page.evaluate(() => { window.__firstDraw = null; });
      await runAndWait('notebook:run-cell');
    } else {
      await runAndWait('notebook:run-all-cells');
    }
    result.runMs = Date.now() - tRun;
    result.firstDrawMs = await page.evaluate(() => (window.__firstDraw === null ? null : window.__firstDraw - window.__runStart));
    await page.waitForTimeout(3000); // let the renderer settle (SwiftShader is slow)

    const info = await page.evaluate(() => {
      const root = document.querySelector('[data-cur="1"]');
      const outputs = [...root.querySelectorAll('.jp-OutputArea-output')].map((o) => o.innerText);
      return {
        canvases: [...root.querySelectorAll('.jp-OutputArea canvas')].map((c) => {
          const r = c.getBoundingClientRect(); return { w: c.width, h: c.height, cssW: r.width, cssH: r.height };
        }),
        errors: outputs.filter((t) => /Traceback|Error displaying widget|Model not found|Failed to load|javascript error/i.test(t))
          .map((t) => t.slice(0, 800)),
        widgetErrors: [...root.querySelectorAll('.widget-error, .jp-WidgetError, .jupyter-widgets-error')].map((e) => e.innerText.slice(0, 300)),
      };
    });
    Object.assign(result, info);

    const canvas = (await page.$$('[data-cur="1"] .jp-OutputArea canvas')).find(Boolean);
    if (canvas) {
      await canvas.scrollIntoViewIfNeeded({ timeout: 10000 });
      await page.waitForTimeout(1500);
      const shot = await canvas.screenshot({ path: `${cfg.out}-canvas.png` });
      result.canvasPixels = await nonBackground(page, shot.toString('base64'));
      await page.screenshot({ path: `${cfg.out}-page.png` });
    }

    if (cfg.probeCode) {
      const text = await kernelExec(page, cfg.probeCode);
      result.probeText = text.slice(0, 2000);
      result.probe = parseProbe(text);
    }
    if (cfg.click && canvas && result.probe) {
      const p = result.probe;
      const bb = await canvas.boundingBox();
      const x = bb.x + (p.x + 0.5) * bb.width / p.width;
      const y = bb.y + (p.y + 0.5) * bb.height / p.height;
      await page.mouse.move(x, y);
      await page.mouse.dblclick(x, y);
      const sel = `[data-cur="1"] .ohara-card[data-node-id="${p.node_id}"] .ohara-inspector-title`;
      try {
        await page.waitForSelector(sel, { timeout: 20000 });
        result.inspectorTitle = await page.$eval(sel, (e) => e.innerText);
      } catch (e) {
        result.inspectorTitle = null;
        result.inspectorNow = await page.evaluate(() => [...document.querySelectorAll('[data-cur="1"] .ohara-inspector-title')].map((e) => e.innerText));
      }
      result.clickedAt = { x, y };
      await page.waitForTimeout(1500);
      const shot2 = await canvas.screenshot({ path: `${cfg.out}-canvas-selected.png` });
      result.canvasPixelsSelected = await nonBackground(page, shot2.toString('base64'));
      await page.screenshot({ path: `${cfg.out}-page-selected.png` });
      result.afterClick = parseProbe(await kernelExec(page, 'import json as _j; print("PROBE=" + _j.dumps({"selected": space_map.selected}))'));
    }
    const labelIds = result.probe && result.probe.label_ids;
    if (labelIds) result.labels = { initial: await labelBoxes(page, labelIds) };
    if (cfg.orbitSteps && canvas) {
      result.orbitMsPerStep = await orbit(page, canvas, cfg.orbitSteps);
      await page.waitForTimeout(3000); // the kernel hears the new camera and re-declutters
      const png = await canvas.screenshot({ path: `${cfg.out}-orbited.png` });
      result.orbitedPixels = await nonBackground(page, png.toString('base64'));
      if (labelIds) result.labels.orbited = await labelBoxes(page, labelIds);
      result.afterOrbit = parseProbe(await kernelExec(page, cfg.labelProbe || 'print("PROBE={}")'));
    }
    result.shots = [];
    for (const shot of cfg.shots || []) {
      const text = shot.code ? await kernelExec(page, shot.code) : '';
      await page.waitForTimeout(2500);
      const entry = { name: shot.name, printed: text.slice(0, 500) };
      if (canvas) {
        const png = await canvas.screenshot({ path: `${cfg.out}-${shot.name}.png` });
        entry.pixels = await nonBackground(page, png.toString('base64'));
      }
      if (labelIds) result.labels[shot.name] = await labelBoxes(page, labelIds);
      result.shots.push(entry);
    }
    result.webgl = await page.evaluate(() => {
      const c = document.createElement('canvas'); const g = c.getContext('webgl');
      if (!g) return 'NO WEBGL';
      const e = g.getExtension('WEBGL_debug_renderer_info');
      return e ? g.getParameter(e.UNMASKED_RENDERER_WEBGL) : g.getParameter(g.RENDERER);
    });
  } catch (e) {
    result.driverError = String(e && e.stack || e);
  } finally {
    result.consoleErrors = logs.filter((l) => l.startsWith('[error]') || l.startsWith('[pageerror]')).slice(0, 50);
    fs.writeFileSync(`${cfg.out}-console.log`, logs.join('\n'));
    fs.writeFileSync(`${cfg.out}.result.json`, JSON.stringify(result, null, 2));
    await browser.close();
  }
})().catch((e) => { console.error('DRIVER ERROR', e); process.exit(2); });
