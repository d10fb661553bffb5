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
  * a progress bar updated while the notebook ran (the kernel sent it two or more values) and ended full;
  * a table rendered as an HTML <table> with data cells;
  * for notebooks with explorers: dragging a slider with the mouse redraws the figure for the slider's new
    position (a different image), and the Done button ends it so the rest of the notebook runs;
  * in 00-tour, after the run: in a fresh cell, Tab after a prefix lists the exported names of a dprl package
    with that prefix, and Shift+Tab on one shows its doc comment (GoNB asks gopls).

Every wait is for a state the page shows (cells' execution counts, images loaded, an explorer's figure
carrying in data-dprl-state the positions its controls show, the kernel's reply to a key); time limits only
bound a failure, and no check sleeps. Elements an explorer replaces when it redraws are looked up afresh after
each wait.

Screenshots go to OUT: NAME.png (the page at the notebook's first figure after the run), NAME-figure.png (that
figure), NAME-end.png (the end of the notebook), NAME-explorer-before.png and -after.png, NAME-completion.png
(the completion list) and NAME-inspect.png (the doc tooltip); on an error NAME-failed.png. JupyterLab's log is
OUT/jupyterlab.log, the browser console OUT/console.log. DPRL_QUICK=1 is set for the kernels. Exit status 0
only if every check passed.

Stress mode (--repeat N, --burn K): the whole test N times, each into OUT/run-NN, while K processes keep
CPUs busy; the pass count and the time per run go to OUT/stress.txt.
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

from playwright.sync_api import TimeoutError as PlaywrightTimeout, sync_playwright

ROOT = Path(__file__).resolve().parent.parent

# notebook -> what its run must show: at least this many figures, this many explorers to drive, and whether
# the completion and inspection check runs in it (after the notebook ran, so its setup cell made the project's
# packages importable).
NOTEBOOKS = {
    "00-tour": dict(figures=1, completion=True),
    "02-balle2016-dp-policy-evaluation": dict(figures=2),
    "07-ad-hoc-private-estimators": dict(figures=3, explorers=1),
}

# The completion check: in a fresh cell importing PACKAGE, typing "<name>.PREFIX" and Tab must list every
# exported name of the package starting with PREFIX (from `go doc`), and Shift+Tab on INSPECT must show its
# doc comment.
COMPLETION = dict(package="github.com/dprl-project/dprl/mechanisms", prefix="AnalyticG",
                  inspect="AnalyticGaussianSigma")

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic", "--hide-scrollbars",
]

# Records, per display, every value of a <progress> bar the kernel sends to the notebook on screen (GoNB's
# display and update messages), so a bar that updated is seen however the page batches its redraws.
PROGRESS_RECORDER = """() => {
  const bars = window.__dprlBars = {};
  window.jupyterapp.shell.currentWidget.sessionContext.iopubMessage.connect((_, msg) => {
    const t = msg.header.msg_type, c = msg.content;
    if ((t !== 'display_data' && t !== 'update_display_data') || !c.transient || !c.data) return;
    let h = c.data['text/html'];
    if (Array.isArray(h)) h = h.join('');
    const m = typeof h === 'string' && /<progress value="(\\d+)" max="(\\d+)"/.exec(h);
    if (!m) return;
    const a = bars[c.transient.display_id] = bars[c.transient.display_id] || [], v = m[1] + '/' + m[2];
    if (a[a.length - 1] !== v) a.push(v);
  });
}"""

# Per output image of the notebook on screen: its size and the fraction of pixels that are neither white nor
# transparent. Called once every image has loaded (IMAGES_LOADED).
IMAGE_PIXELS = """(nb) => Array.from(document.querySelectorAll(nb + ' .jp-OutputArea-output img')).map(img => {
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
})"""

IMAGES_LOADED = """(nb) => Array.from(document.querySelectorAll(nb + ' .jp-OutputArea-output img')).every(i => i.complete)"""

# Every code cell of the notebook on screen shows an execution count. JupyterLab sets it once the cell's
# reply and the kernel's idle status after its outputs have arrived, so the outputs are in the page then.
ALL_FINISHED = """(nb) => {
  const ps = Array.from(document.querySelectorAll(nb + ' .jp-CodeCell .jp-InputArea-prompt')).map(e => e.textContent.trim());
  return ps.length > 0 && ps.every(p => /^\\[\\d+\\]:$/.test(p));
}"""

# Some code cell has left its "[ ]:" prompt (it runs, waits to run, or ran).
ANY_STARTED = """(nb) => Array.from(document.querySelectorAll(nb + ' .jp-CodeCell .jp-InputArea-prompt'))
  .some(e => e.textContent.trim() !== '[ ]:')"""

# An explorer (dprl/display) in a state: its figure drawn for the positions its controls show, at least minGen
# drawings so far, the image loaded. Returns what the figure shows, or false. The explorer replaces its figure
# only when the state changes, so once this holds the figure stays until the next move.
EXPLORER_STATE = """([id, minGen]) => {
  const root = document.querySelector(`.dprl-explorer[data-dprl-explorer="${id}"]`);
  const fig = document.querySelector(`.dprl-explorer-figure[data-dprl-explorer="${id}"]`);
  if (!root || !fig) return false;
  const want = Array.from(root.querySelectorAll('.dprl-control')).map(c => c.value).join(' ');
  const gen = Number(fig.dataset.dprlGeneration), img = fig.querySelector('img.dprl-figure');
  if (fig.dataset.dprlState !== want || gen < minGen || (img && !img.complete)) return false;
  const err = fig.querySelector('.dprl-explorer-error');
  return {state: want, gen: gen, src: img ? img.getAttribute('src') : null,
          caption: fig.querySelector('.dprl-caption').textContent, error: err ? err.textContent : null};
}"""

# What an explorer shows now, for a failure message.
EXPLORER_NOW = """(id) => {
  const root = document.querySelector(`.dprl-explorer[data-dprl-explorer="${id}"]`);
  const fig = document.querySelector(`.dprl-explorer-figure[data-dprl-explorer="${id}"]`);
  return {controls: root ? Array.from(root.querySelectorAll('.dprl-control')).map(c => c.value).join(' ') : null,
          figure: fig ? fig.dataset.dprlState : null, generation: fig ? fig.dataset.dprlGeneration : null};
}"""

# A fresh code cell below the last one, holding SOURCE, in edit mode with the cursor at its end.
FRESH_CELL = """async (source) => {
  const app = window.jupyterapp, panel = app.shell.currentWidget, nb = panel.content;
  nb.activeCellIndex = nb.widgets.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  await app.commands.execute('notebook:change-cell-to-code');
  const cell = nb.activeCell;
  cell.model.sharedModel.setSource(source);
  await app.commands.execute('notebook:enter-edit-mode');
  const ed = cell.editor, lines = source.split('\\n');
  ed.setCursorPosition({line: lines.length - 1, column: lines[lines.length - 1].length});
  ed.focus();
  cell.node.scrollIntoView({block: 'center'});
  return nb.widgets.length;
}"""

# Records every complete_reply and inspect_reply the kernel sends to the notebook on screen (its content and
# how long after its request it came, in ms), and a log of requests and replies for failure messages.
REPLY_RECORDER = """() => {
  const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel, t0 = Date.now(), sent = {};
  const r = window.__dprlReplies = {complete_reply: [], inspect_reply: [], log: []};
  k.anyMessage.connect((_, a) => {
    const m = a.msg, t = m.header.msg_type, c = m.content;
    if (!/^(complete|inspect)_(request|reply)$/.test(t)) return;
    r.log.push(`${((Date.now() - t0) / 1000).toFixed(1)}s ${a.direction} ${t}` +
      (t === 'complete_reply' ? ` ${c.status} ${JSON.stringify(c.matches)}` : ''));
    if (a.direction === 'send') sent[m.header.msg_id] = Date.now();
    else r[t].push({content: c, ms: Date.now() - (sent[m.parent_header.msg_id] || t0)});
  });
}"""

# After Tab: "list" once the completion list shows; "empty" once a reply past the first n came with no match,
# "late" once one came after JupyterLab's providerTimeout (JupyterLab drops it and shows nothing).
COMPLETION_STATE = """([n, timeout]) => {
  const shown = Array.from(document.querySelectorAll('.jp-Completer')).filter(c => c.getClientRects().length);
  if (shown.some(c => c.querySelector('.jp-Completer-item'))) return 'list';
  const r = window.__dprlReplies.complete_reply, last = r[r.length - 1];
  if (r.length <= n) return false;
  return !(last.content.matches || []).length ? 'empty' : last.ms > timeout ? 'late' : false;
}"""

# After Shift+Tab: "doc" once the tooltip shows the sentence, or the reply's text once a reply past the first n
# came without the sentence's first words (key).
INSPECT_STATE = """([n, sentence, key]) => {
  const flat = (x) => x.replace(/\\s+/g, ' ');
  if (Array.from(document.querySelectorAll('.jp-Tooltip')).some(t => flat(t.textContent).includes(sentence))) return 'doc';
  const r = window.__dprlReplies.inspect_reply, last = r[r.length - 1];
  if (r.length <= n) return false;
  const text = flat(Object.values(last.content.data || {}).join(' '));
  return text.includes(key) ? false : 'reply: ' + (text.slice(0, 200) || last.content.status);
}"""




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


def start_lab(venv, work, settings, tmp, port, token, log):
    env = dict(os.environ)
    env["DPRL_QUICK"] = "1"
    # a temporary folder of this run's own: GoNB's kernel folders and whatever a notebook writes under
    # os.TempDir go there, so two runs at once (two checkouts' `make test`) share no temporary file
    env["TMPDIR"] = str(tmp)
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
    deadline = time.time() + 120
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
    raise SystemExit(f"labtest: JupyterLab did not answer on port {port} within 120 s (log: {log.name})")


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


def wait_finished(page, timeout):
    """Waits until every code cell shows an execution count."""
    try:
        page.wait_for_function(ALL_FINISHED, arg=NB, timeout=timeout * 1000, polling=500)
    except PlaywrightTimeout:
        raise AssertionError(f"cells still running or not run after {timeout} s: prompts {prompts(page)}") from None


def run_all(page):
    """Run > Run All Cells, as a reader does; if the menu closed and no cell started within 30 s, the same
    command directly (a click the page lost)."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.locator(".lm-Menu").first.wait_for(state="hidden")  # the menu has run its command (or was dismissed)
    try:
        page.wait_for_function(ANY_STARTED, arg=NB, timeout=30000, polling=200)
    except PlaywrightTimeout:
        print("  (Run menu started nothing: running notebook:run-all-cells directly)", flush=True)
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")


def check_notebook(page, base, name, spec, out, fail):
    t0 = time.time()
    # A workspace of its own, reset: only this notebook is open (no tabs restored from the previous one).
    page.goto(f"{base}/lab/workspaces/{name}/tree/{name}.ipynb?reset")
    page.wait_for_selector(f"{NB} .jp-CodeCell", timeout=60000)
    # The kernel is up when the session is ready and the kernel idle.
    page.wait_for_function(KERNEL_IDLE, timeout=120000)
    page.evaluate(PROGRESS_RECORDER)
    run_all(page)
    for k in range(spec.get("explorers", 0)):
        check_explorer(page, name, k, out, fail)
    wait_finished(page, 300)
    # Figures are data URLs the browser decodes on its own time: measure them once every one has loaded.
    page.wait_for_function(IMAGES_LOADED, arg=NB, timeout=60000, polling=200)

    # Errors: error outputs (JupyterLab renders them with the stderr MIME type and the error class) and panics.
    errors = page.eval_on_selector_all(
        f"{NB} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
        "els => els.map(e => e.textContent.slice(0, 300))")
    text = page.inner_text(f"{NB} .jp-Notebook")
    if errors:
        fail(f"{len(errors)} error outputs, first: {errors[0]!r}")
    if "panic:" in text:
        fail("a cell panicked")
    imgs = page.evaluate(IMAGE_PIXELS, NB)
    inked = [i for i in imgs if i["w"] > 0 and i["ink"] > 0.02]
    if len(inked) < spec["figures"]:
        fail(f"{len(inked)} rendered figures with non-blank pixels, want at least {spec['figures']} ({imgs})")
    bars = page.evaluate("window.__dprlBars")
    finals = page.eval_on_selector_all(f"{NB} .jp-OutputArea progress",
                                       "els => els.map(p => [p.getAttribute('value'), p.getAttribute('max')])")
    if not any(len(v) >= 2 for v in bars.values()):
        fail(f"no progress bar updated (values sent per bar: {bars})")
    ends = [v[-1].split("/") for v in bars.values()]
    if not finals or any(v != m for v, m in finals + ends):
        fail(f"progress bars did not end full: shown {finals}, last sent {ends}")
    tables = page.eval_on_selector_all(f"{NB} .jp-OutputArea-output table", "ts => ts.map(t => t.querySelectorAll('td').length)")
    if not any(n > 0 for n in tables):
        fail("no HTML table with data cells")
    page.screenshot(path=str(out / f"{name}-end.png"), full_page=True)
    figs = page.locator(f"{NB} .jp-OutputArea-output img")
    if figs.count() > 0:  # the page scrolled to the notebook's first figure, and that figure alone
        figs.first.scroll_into_view_if_needed()
        page.screenshot(path=str(out / f"{name}.png"))
        figs.first.screenshot(path=str(out / f"{name}-figure.png"))
    print(f"  {len(prompts(page))} code cells, {len(inked)} figures (ink {[round(i['ink'], 3) for i in inked]}), "
          f"{len(tables)} tables, progress bars {len(bars)} (values sent {sum(len(v) for v in bars.values())}), "
          f"{time.time() - t0:.1f} s", flush=True)
    if spec.get("completion"):
        check_completion(page, name, out, fail)


def wait_explorer(page, xid, min_gen, timeout):
    """Waits until explorer xid shows its figure for the state of its controls, drawn at least min_gen times."""
    try:
        return page.wait_for_function(EXPLORER_STATE, arg=[xid, min_gen], timeout=timeout * 1000,
                                      polling=200).json_value()
    except PlaywrightTimeout:
        raise AssertionError(f"explorer {xid} did not show its figure for its controls' state within {timeout} s "
                             f"(at least {min_gen} drawings); now {page.evaluate(EXPLORER_NOW, xid)}") from None


def check_explorer(page, name, k, out, fail):
    """Drives the notebook's next explorer (drive_explorer), then presses its Done button, which ends its cell
    so the rest of the notebook runs whatever happened."""
    root = page.locator(f"{NB} .dprl-explorer:not(.dprl-explorer-closed)").first
    root.wait_for(timeout=300000)  # its cell has started (the cells before it ran)
    xid = root.get_attribute("data-dprl-explorer")
    try:
        drive_explorer(page, xid, k, name if k == 0 else f"{name}-{k + 1}", out, fail)
    finally:
        try:
            page.locator(f'.dprl-explorer[data-dprl-explorer="{xid}"] .dprl-done').click()
            page.locator(f'.dprl-explorer-closed[data-dprl-explorer="{xid}"]').wait_for(timeout=60000)
        except Exception as e:  # noqa: BLE001 (the error that brought us here, if any, is the one to report)
            fail(f"explorer {k + 1}: Done did not close it ({e})")


def drive_explorer(page, xid, k, tag, out, fail):
    """Waits for explorer xid's figure, drags its first slider with the mouse, and waits for the figure drawn
    for the slider's new position (a different image). Each wait is for a state the page shows (the figure's
    data-dprl-state equal to the controls' positions), and every element is looked up afresh after it, since
    the explorer replaces its figure when it redraws."""
    before = wait_explorer(page, xid, 1, 120)
    fig = page.locator(f'.dprl-explorer-figure[data-dprl-explorer="{xid}"]')
    fig.scroll_into_view_if_needed()
    fig.screenshot(path=str(out / f"{tag}-explorer-before.png"))
    slider = page.locator(f'.dprl-explorer[data-dprl-explorer="{xid}"] input[type=range]').first
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    # Drag the thumb from its place to the far end of the track, as a reader does with the mouse.
    lo, hi = int(slider.get_attribute("min")), int(slider.get_attribute("max"))
    val = int(slider.input_value())
    x0 = box["x"] + 8 + (box["width"] - 16) * (val - lo) / max(1, hi - lo)
    x1 = box["x"] + box["width"] - 2 if val < hi else box["x"] + 2
    y = box["y"] + box["height"] / 2
    page.mouse.move(x0, y)
    page.mouse.down()
    page.mouse.move(x1, y, steps=8)
    page.mouse.up()
    moved = int(slider.input_value())
    print(f"  slider moved from {val} to {moved}", flush=True)
    if moved == val:
        fail(f"explorer {k + 1}: dragging the slider did not move it")
        return
    after = wait_explorer(page, xid, before["gen"] + 1, 120)
    if after["error"]:
        fail(f"explorer {k + 1} failed to draw {after['caption']!r}: {after['error']}")
    elif after["src"] == before["src"]:
        fail(f"explorer {k + 1}: the figure for {after['caption']!r} is the same image as for {before['caption']!r}")
    fig.screenshot(path=str(out / f"{tag}-explorer-after.png"))  # a locator resolves again at each use
    print(f"  explorer redrawn: {before['caption']!r} -> {after['caption']!r} "
          f"(drawing {after['gen']}, state {after['state']!r})", flush=True)


def go_doc(args):
    go = shutil.which("go") or "/usr/local/go/bin/go"
    return subprocess.run([go, "doc", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def exported_names(package):
    """The package-level names `go doc -short` lists (functions, types, constants, variables, constructors)."""
    names = set()
    for line in go_doc(["-short", package]).splitlines():
        words = line.replace("(", " ").split()
        if len(words) >= 2 and words[0] in ("func", "type", "const", "var") and words[1][:1].isupper():
            names.add(words[1])
    return names


def doc_sentence(package, name):
    """The first sentence of NAME's doc comment (the indented text under its declaration), whitespace collapsed."""
    lines = go_doc([package, name]).split("\n\n", 1)[1].splitlines()
    doc = []
    for line in lines[1:]:
        if not line.startswith("    "):
            break
        doc.append(line.strip())
    return " ".join(" ".join(doc).split()).split(". ")[0]


def ask_kernel(page, key, state, arg, tries=6):
    """Presses key until the page reaches the state the JS predicate `state` names with a string other than a
    retry. GoNB gives gopls 8 s per request and answers nothing useful past that, which a loaded machine can
    miss (the first request also loads the module); a reader presses the key again, and so does this, at most
    `tries` times, each once the reply came (a new press replaces a tooltip). Returns (final state, presses)."""
    for n in range(1, tries + 1):
        seen = len(page.evaluate("window.__dprlReplies")[arg["reply"]])
        page.keyboard.press(key)
        try:
            got = page.wait_for_function(state, arg=[seen, *arg["args"]], timeout=120000, polling=200).json_value()
        except PlaywrightTimeout:
            raise AssertionError(f"{key} (press {n}): neither the page nor the kernel answered within 120 s; "
                                 f"messages {page.evaluate('window.__dprlReplies.log')}") from None
        if got == arg["want"]:
            return got, n
    return got, tries


def provider_timeout(page):
    """JupyterLab's completer providerTimeout in this environment (kernels/install.sh raises it), in ms."""
    return page.evaluate("""async () => {
      const s = await window.jupyterapp.serviceManager.settings.fetch('@jupyterlab/completer-extension:manager');
      const v = (s.settings || {}).providerTimeout;
      return v !== undefined ? v : s.schema.properties.providerTimeout.default;
    }""")


def check_completion(page, name, out, fail):
    """Tab completion and Shift+Tab documentation in a fresh cell, as a reader uses them (GoNB asks gopls)."""
    t0 = time.time()
    pkg, prefix, target = COMPLETION["package"], COMPLETION["prefix"], COMPLETION["inspect"]
    short = pkg.rsplit("/", 1)[1]
    names = exported_names(pkg)
    want = sorted(n for n in names if n.startswith(prefix))
    sentence = doc_sentence(pkg, target)
    page.evaluate(REPLY_RECORDER)
    page.evaluate(FRESH_CELL, f'import "{pkg}"\n\n%%\n')
    page.keyboard.type(f"{short}.{prefix}")
    timeout = provider_timeout(page)
    got, tabs = ask_kernel(page, "Tab", COMPLETION_STATE, dict(reply="complete_reply", args=[timeout], want="list"))
    page.screenshot(path=str(out / f"{name}-completion.png"))
    if got != "list":
        fail(f"completion: Tab after {short}.{prefix} opened no completion list in {tabs} tries")
        return
    shown = [t.strip() for t in page.locator(".jp-Completer:visible .jp-Completer-item .jp-Completer-match").all_text_contents()]
    missing = [n for n in want if n not in shown]
    foreign = [n for n in shown if n not in names]
    if not want or missing or foreign:
        fail(f"completion of {short}.{prefix}: shown {shown}, exported names with that prefix {want}"
             f" (missing {missing}, not exported by {short}: {foreign})")
    # Choose the documented name from the list, then Shift+Tab on it.
    page.locator(".jp-Completer:visible .jp-Completer-item", has_text=target).first.click()
    page.locator(".jp-Completer:visible").wait_for(state="detached")
    key = " ".join(sentence.split()[:4])
    got, presses = ask_kernel(page, "Shift+Tab", INSPECT_STATE,
                              dict(reply="inspect_reply", args=[sentence, key], want="doc"))
    page.screenshot(path=str(out / f"{name}-inspect.png"))
    if got != "doc":
        fail(f"inspection: Shift+Tab on {short}.{target} did not show its doc comment {sentence!r} "
             f"in {presses} tries (last {got})")
        return
    page.keyboard.press("Escape")
    ms = {t: [x["ms"] for x in v] for t, v in page.evaluate("window.__dprlReplies").items() if t != "log"}
    print(f"  completion {short}.{prefix} -> {shown} (Tab pressed {tabs}x, replies after {ms['complete_reply']} ms, "
          f"JupyterLab waits {timeout} ms); Shift+Tab on {target} shows {sentence[:40]!r}... (pressed {presses}x, "
          f"replies after {ms['inspect_reply']} ms), {time.time() - t0:.1f} s", flush=True)


def run_once(args, names, out, chromium):
    """One full browser test into out; returns the failures."""
    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    for n in names:
        shutil.copy(ROOT / "notebooks" / f"{n}.ipynb", work)
    settings = Path(tempfile.mkdtemp(prefix="dprl-lab-settings-"))
    profile = tempfile.mkdtemp(prefix="dprl-chromium-")
    tmp = tempfile.mkdtemp(prefix="dprl-lab-tmp-")
    write_settings(settings)
    port, token = free_port(), secrets.token_hex(16)
    venv = Path(sys.prefix)
    t0 = time.time()
    failures = []
    with open(out / "jupyterlab.log", "w") as log, open(out / "console.log", "w") as console:
        lab = start_lab(venv, work, settings, tmp, port, token, log)
        print(f"JupyterLab on http://127.0.0.1:{port}/lab (up in {time.time() - t0:.1f} s), Chromium {chromium}",
              flush=True)
        try:
            with sync_playwright() as pw:
                ctx = pw.chromium.launch_persistent_context(
                    profile, executable_path=chromium, headless=not args.headed, args=CHROMIUM_ARGS,
                    viewport={"width": 1280, "height": 1600})
                page = ctx.new_page()
                page.goto(f"http://127.0.0.1:{port}/lab?token={token}")
                page.wait_for_selector(".jp-LabShell", timeout=60000)
                base = f"http://127.0.0.1:{port}"
                for n in names:
                    print(f"{n}:", flush=True)
                    page.close()  # one page per notebook: only that notebook open
                    page = ctx.new_page()
                    page.on("console", lambda m, n=n: console.write(f"{n} {m.type}: {m.text}\n"))

                    def fail(msg, n=n):
                        failures.append(f"{n}: {msg}")
                        print(f"  FAIL {msg}", flush=True)

                    try:
                        check_notebook(page, base, n, NOTEBOOKS.get(n, dict(figures=1)), out, fail)
                    except Exception as e:  # noqa: BLE001 (record, keep the evidence, go on with the next notebook)
                        fail(str(e))
                        try:
                            page.screenshot(path=str(out / f"{n}-failed.png"), full_page=True)
                        except Exception as e2:  # noqa: BLE001
                            print(f"  (no failure screenshot: {e2})", flush=True)
                ctx.close()
        finally:
            os.killpg(lab.pid, 15)
            try:
                lab.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(lab.pid, 9)
            shutil.rmtree(settings, ignore_errors=True)
            shutil.rmtree(profile, ignore_errors=True)
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"total {time.time() - t0:.1f} s; screenshots, JupyterLab's log and the browser console in {out}")
    return failures


def start_burners(n):
    """n processes that keep a CPU busy each (the stress mode's load)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="build/lab", help="screenshots and the run's files")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--headed", action="store_true", help="show the browser (needs a display)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run the whole test this many times (each into OUT/run-NN; a failed run does not stop the series)")
    ap.add_argument("--burn", type=int, default=0, help="keep this many CPUs busy meanwhile (stress mode)")
    ap.add_argument("notebooks", nargs="*", help="notebook names (default: %s)" % ", ".join(NOTEBOOKS))
    args = ap.parse_args()
    names = args.notebooks or list(NOTEBOOKS)
    out = Path(args.out).resolve()
    if args.repeat <= 1 and args.burn == 0:
        failures = run_once(args, names, out, args.chromium)
        if failures:
            print("FAILED:\n  " + "\n  ".join(failures))
            sys.exit(1)
        print("all checks passed")
        return
    for old in out.glob("run-[0-9][0-9]"):  # a longer earlier series' folders would read as this one's
        shutil.rmtree(old)
    burners = start_burners(args.burn)
    results = []
    try:
        print(f"stress mode: {args.repeat} runs, {args.burn} CPU burners (pids {[b.pid for b in burners]})", flush=True)
        for i in range(1, args.repeat + 1):
            t0 = time.time()
            print(f"=== run {i}/{args.repeat}", flush=True)
            try:
                failures = run_once(args, names, out / f"run-{i:02d}", args.chromium)
            except SystemExit as e:  # JupyterLab did not start: a failed run, not the end of the series
                failures = [str(e)]
                print(e, flush=True)
            results.append((i, failures, time.time() - t0))
            print(f"=== run {i}/{args.repeat}: {'FAILED' if failures else 'passed'} in {results[-1][2]:.1f} s", flush=True)
    finally:
        for b in burners:
            b.kill()
            b.wait()
    passed = [r for r in results if not r[1]]
    times = [r[2] for r in results]
    lines = [f"{len(passed)}/{len(results)} runs passed with {args.burn} CPU burners; time per run "
             f"mean {sum(times) / len(times):.1f} s, min {min(times):.1f} s, max {max(times):.1f} s"]
    lines += [f"run {i:02d}: {'passed' if not f else 'FAILED'} {t:.1f} s" + "".join(f"\n  {x}" for x in f)
              for i, f, t in results]
    (out / "stress.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if len(passed) < len(results):
        sys.exit(1)


if __name__ == "__main__":
    main()
