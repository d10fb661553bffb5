"""JupyterLab in a real browser: the project's notebooks run through the UI, checked as a reader sees them.

Run by `make test-lab` (part of `make test`) with the project environment's Python (build/venv, from
kernels/requirements.lock, which pins Playwright); Chromium is Debian's /usr/bin/chromium
(kernels/install.sh --browser installs it; Playwright's own browser download is not used).

It copies the notebooks into OUT/work (JupyterLab saves what it runs; the checkout stays untouched), starts
JupyterLab on a free loopback port with a fresh token and settings (no windowing, so every cell is in the
page; no news or update checks), and for each notebook in NOTEBOOKS: opens it, runs all cells from the Run
menu, and asserts that

  * every code cell finished (an execution count, no "[*]") and no output is an error or a Go panic;
  * at least the expected number of figures rendered, each decoded with non-blank pixels
    (more than 2% of pixels neither white nor transparent, counted on a canvas in the page);
  * a progress bar updated while the notebook ran (two or more values seen) and ended full;
  * a table rendered as an HTML <table> with data cells;
  * for notebooks with an explorer: moving a slider (keyboard, as a reader would) redraws the figure, and
    the Done button ends it so the rest of the notebook runs.

Screenshots go to OUT: NAME.png (the page at the notebook's first figure after the run), NAME-figure.png (that
figure), NAME-end.png (the end of the notebook), NAME-explorer-before.png and -after.png.
DPRL_QUICK=1 is set for the kernels. Exit status 0 only if every check passed.
"""

import argparse
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent

# notebook -> (figures expected at least, has an explorer)
NOTEBOOKS = {
    "00-tour": (1, False),
    "02-balle2016-dp-policy-evaluation": (2, False),
    "07-ad-hoc-private-estimators": (3, True),
}

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic", "--hide-scrollbars",
]

# Records every value a <progress> element shows, from the moment the page loads.
PROGRESS_RECORDER = """
window.__dprlProgress = [];
new MutationObserver(() => {
  document.querySelectorAll('.jp-OutputArea progress').forEach(p => {
    const v = p.getAttribute('value') + '/' + p.getAttribute('max');
    const a = window.__dprlProgress;
    if (a.length === 0 || a[a.length - 1] !== v) a.push(v);
  });
}).observe(document, {subtree: true, childList: true, attributes: true});
"""

# Per output image: its size and the fraction of pixels that are neither white nor transparent.
IMAGE_PIXELS = """
() => Array.from(document.querySelectorAll('.jp-OutputArea-output img')).map(img => {
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  if (!c.width || !c.height) return {w: 0, h: 0, ink: 0};
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let ink = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] > 16 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) ink++;
  }
  return {w: c.width, h: c.height, ink: ink / (c.width * c.height)};
})
"""


# The kernel is ready when connected and idle. GoNB sends no status for JupyterLab's history_request, so a
# connection can stay "unknown" until the next request: ask for kernel info again (once a second) meanwhile.
KERNEL_IDLE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  if (!k || k.connectionStatus !== 'connected') return false;
  if (k.status === 'unknown' && !(window.__dprlAsked > Date.now() - 1000)) {
    window.__dprlAsked = Date.now();
    k.requestKernelInfo().catch(() => {});
  }
  return k.status === 'idle';
}"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_lab(venv, work, settings, port, token, log):
    env = dict(os.environ)
    env["DPRL_QUICK"] = "1"
    # notebook 07 spends a privacy budget per data file: a store of this run's own, so a second run (or the
    # user's own store) is not the one spent
    env["DPRL_BUDGET_DIR"] = str(work / "budgets")
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    env.setdefault("JUPYTER_DATA_DIR", str(venv / "share" / "jupyter"))
    cmd = [
        str(venv / "bin" / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}",
        f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={settings}/workspaces",
        "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",
    ]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/api/status?token={token}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"labtest: JupyterLab exited with status {proc.returncode} (log: {log.name})")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit(f"labtest: JupyterLab did not answer on port {port} within 60 s (log: {log.name})")


def write_settings(settings):
    """Settings for a test run: every cell stays in the page (no windowing), no news."""
    files = {
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
            "fetchNews": "false", "checkForUpdates": False},
    }
    for name, value in files.items():
        p = settings / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(value))


# The notebook on screen (JupyterLab keeps other documents' panels in the page, hidden).
NB = ".jp-NotebookPanel:not(.lm-mod-hidden)"


def prompts(page):
    return page.eval_on_selector_all(
        f"{NB} .jp-CodeCell .jp-InputArea-prompt", "els => els.map(e => e.textContent.trim())")


def wait_finished(page, timeout, allow_running=False):
    """Waits until every code cell shows an execution count, or one runs (allow_running) past a moment."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        ps = prompts(page)
        if ps and all(p.startswith("[") and p[1:-2].strip().isdigit() for p in ps):
            return ps
        time.sleep(0.5)
    raise AssertionError(f"cells still running or not run after {timeout} s: prompts {prompts(page)}")


def run_all(page):
    """Run > Run All Cells, as a reader does; if no cell starts within 15 s, the same command directly."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    deadline = time.time() + 15
    while time.time() < deadline:
        if any(p != "[ ]:" for p in prompts(page)):
            return
        time.sleep(0.3)
    print("  (Run menu started nothing: running notebook:run-all-cells directly)", flush=True)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")


def check_notebook(page, base, name, figures, explorer, out, failures):
    t0 = time.time()
    # A workspace of its own, reset: only this notebook is open (no tabs restored from the previous one).
    page.goto(f"{base}/lab/workspaces/{name}/tree/{name}.ipynb?reset")
    page.wait_for_selector(f"{NB} .jp-CodeCell", timeout=60000)
    # The kernel is up when the session is ready and the kernel idle.
    page.wait_for_function(KERNEL_IDLE, timeout=120000)
    page.evaluate("window.__dprlProgress = []")
    run_all(page)
    if explorer:
        check_explorer(page, name, out, failures)
    ps = wait_finished(page, 240)
    page.wait_for_timeout(500)

    def fail(msg):
        failures.append(f"{name}: {msg}")
        print(f"  FAIL {msg}", flush=True)

    # Errors: error outputs (JupyterLab renders them with the stderr MIME type and the error class) and panics.
    errors = page.eval_on_selector_all(
        f"{NB} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
        "els => els.map(e => e.textContent.slice(0, 300))")
    text = page.inner_text(f"{NB} .jp-Notebook")
    if errors:
        fail(f"{len(errors)} error outputs, first: {errors[0]!r}")
    if "panic:" in text:
        fail("a cell panicked")
    imgs = page.evaluate(IMAGE_PIXELS.replace(".jp-OutputArea-output img", f"{NB} .jp-OutputArea-output img"))
    inked = [i for i in imgs if i["w"] > 0 and i["ink"] > 0.02]
    if len(inked) < figures:
        fail(f"{len(inked)} rendered figures with non-blank pixels, want at least {figures} ({imgs})")
    seen = page.evaluate("window.__dprlProgress")
    finals = page.eval_on_selector_all(f"{NB} .jp-OutputArea progress",
                                       "els => els.map(p => [p.getAttribute('value'), p.getAttribute('max')])")
    if len(seen) < 2:
        fail(f"no progress bar updated (values seen: {seen})")
    if not finals or any(v != m for v, m in finals):
        fail(f"progress bars did not end full: {finals}")
    tables = page.eval_on_selector_all(f"{NB} .jp-OutputArea-output table", "ts => ts.map(t => t.querySelectorAll('td').length)")
    if not any(n > 0 for n in tables):
        fail("no HTML table with data cells")
    page.screenshot(path=str(out / f"{name}-end.png"), full_page=True)
    figs = page.locator(f"{NB} .jp-OutputArea-output img")
    if figs.count() > 0:  # the page scrolled to the notebook's first figure, and that figure alone
        figs.first.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / f"{name}.png"))
        figs.first.screenshot(path=str(out / f"{name}-figure.png"))
    print(f"  {len(ps)} code cells, {len(inked)} figures (ink {[round(i['ink'], 3) for i in inked]}), "
          f"{len(tables)} tables, progress values seen {len(seen)}, {time.time() - t0:.1f} s", flush=True)


def check_explorer(page, name, out, failures):
    """Moves the explorer's first slider and checks the figure was redrawn, then presses Done."""
    fig = page.locator(".dprl-explorer-figure img.dprl-figure").first
    fig.wait_for(timeout=240000)
    fig.scroll_into_view_if_needed()
    before = fig.get_attribute("src")
    caption = page.locator(".dprl-explorer-figure .dprl-caption").first.inner_text()
    page.locator(".dprl-explorer-figure").first.screenshot(path=str(out / f"{name}-explorer-before.png"))
    slider = page.locator(".dprl-explorer input[type=range]").first
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    # Drag the thumb from its place to the right end of the track, as a reader does with the mouse.
    lo, hi = int(slider.get_attribute("min") or 0), int(slider.get_attribute("max") or 1)
    val = int(slider.input_value())
    x0 = box["x"] + 8 + (box["width"] - 16) * (val - lo) / max(1, hi - lo)
    y = box["y"] + box["height"] / 2
    page.mouse.move(x0, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 2, y, steps=8)
    page.mouse.up()
    print(f"  slider moved from {val} to {slider.input_value()}", flush=True)
    try:
        page.wait_for_function(
            "(src) => { const i = document.querySelector('.dprl-explorer-figure img.dprl-figure');"
            " return i && i.getAttribute('src') !== src; }", arg=before, timeout=90000)
    except Exception as e:  # noqa: BLE001 (report and go on: Done still has to end the cell)
        failures.append(f"{name}: moving the slider did not redraw the figure ({e})")
        print("  FAIL explorer figure unchanged", flush=True)
    else:
        after = page.locator(".dprl-explorer-figure .dprl-caption").first.inner_text()
        page.locator(".dprl-explorer-figure").first.screenshot(path=str(out / f"{name}-explorer-after.png"))
        print(f"  explorer redrawn: {caption!r} -> {after!r}", flush=True)
    page.locator(".dprl-explorer button", has_text="Done").first.click()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="build/lab", help="screenshots and the run's files")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--headed", action="store_true", help="show the browser (needs a display)")
    ap.add_argument("notebooks", nargs="*", help="notebook names (default: %s)" % ", ".join(NOTEBOOKS))
    args = ap.parse_args()
    names = args.notebooks or list(NOTEBOOKS)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    for n in names:
        shutil.copy(ROOT / "notebooks" / f"{n}.ipynb", work)
    settings = Path(tempfile.mkdtemp(prefix="dprl-lab-settings-"))
    profile = tempfile.mkdtemp(prefix="dprl-chromium-")
    write_settings(settings)
    port, token = free_port(), secrets.token_hex(16)
    venv = Path(sys.prefix)
    t0 = time.time()
    failures = []
    with open(out / "jupyterlab.log", "w") as log:
        lab = start_lab(venv, work, settings, port, token, log)
        print(f"JupyterLab on http://127.0.0.1:{port}/lab (up in {time.time() - t0:.1f} s), Chromium {args.chromium}",
              flush=True)
        try:
            with sync_playwright() as pw:
                ctx = pw.chromium.launch_persistent_context(
                    profile, executable_path=args.chromium, headless=not args.headed, args=CHROMIUM_ARGS,
                    viewport={"width": 1280, "height": 1600})
                ctx.add_init_script(PROGRESS_RECORDER)
                page = ctx.new_page()
                page.goto(f"http://127.0.0.1:{port}/lab?token={token}")
                page.wait_for_selector(".jp-LabShell", timeout=60000)
                base = f"http://127.0.0.1:{port}"
                for n in names:
                    figures, explorer = NOTEBOOKS.get(n, (1, False))
                    print(f"{n}:", flush=True)
                    page.close()  # one page per notebook: only that notebook open
                    page = ctx.new_page()
                    try:
                        check_notebook(page, base, n, figures, explorer, out, failures)
                    except Exception as e:  # noqa: BLE001
                        failures.append(f"{n}: {e}")
                        print(f"  FAIL {e}", flush=True)
                        page.screenshot(path=str(out / f"{n}-failed.png"), full_page=True)
                ctx.close()
        finally:
            os.killpg(lab.pid, 15)
            try:
                lab.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(lab.pid, 9)
            shutil.rmtree(settings, ignore_errors=True)
            shutil.rmtree(profile, ignore_errors=True)
    print(f"total {time.time() - t0:.1f} s; screenshots in {out}")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
