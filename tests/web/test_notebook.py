"""The example notebook (resources/examples/sinkscope-notebook.ipynb) runs
end to end with `python3 -m nbconvert --execute` (Debian's nbconvert and
ipykernel), and each interactive view it shows (numpy-made attention, a run
of the built-in model) draws in headless Chromium from the executed
notebook's own output, in the sandboxed frame a notebook gives it."""

import html
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from chromium import browser

SOURCE = os.environ["SINKSCOPE_SOURCE_DIR"]
NOTEBOOK = os.path.join(SOURCE, "resources", "examples", "sinkscope-notebook.ipynb")
MODEL = os.path.join(SOURCE, "resources", "models", "rope-decoder-bos-first")


@pytest.fixture(scope="module")
def executed():
    import nbformat
    folder = tempfile.mkdtemp(prefix="sinkscope-notebook-")
    env = dict(os.environ, SINKSCOPE_MODEL=MODEL)
    subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
                    "--ExecutePreprocessor.timeout=300", NOTEBOOK, "--output-dir", folder],
                   check=True, capture_output=True, env=env, timeout=600)
    yield folder, nbformat.read(os.path.join(folder, os.path.basename(NOTEBOOK)), as_version=4)
    shutil.rmtree(folder)


def test_the_notebook_runs_and_each_view_draws_in_a_sandboxed_frame(executed):
    folder, nb = executed
    frames = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", output
            shown = output.get("data", {}).get("text/html", "")
            frames += re.findall(r'<iframe srcdoc="([^"]*)"[^>]*sandbox="allow-scripts"', shown)
    assert len(frames) == 2, "the numpy view and the model run's view"
    for k, frame in enumerate(frames):
        # The frame's page inside a sandboxed frame, as the notebook shows it;
        # the page's own address then names the head, so its DOM can be read.
        page = os.path.join(folder, "view%d.html" % k)
        with open(page, "w", encoding="utf-8") as out:
            out.write(html.unescape(frame))
        out = browser("--dump-dom", "file://" + page + "#layer=1&head=1")
        dom = out.stdout.decode("utf-8")
        assert 'data-ready="1,1"' in dom, dom[:2000]
        assert "data-error" not in dom
        # In its sandboxed frame, as the notebook shows it: the frame tells the
        # page around it when its head is drawn (its own DOM is out of reach).
        holder = os.path.join(folder, "frame%d.html" % k)
        with open(holder, "w", encoding="utf-8") as out:
            out.write('<body><iframe srcdoc="%s" sandbox="allow-scripts" width="1200" '
                      'height="900"></iframe><script>addEventListener("message", (e) => {'
                      'if (e.data && e.data.sinkscope === "ready") document.body.dataset'
                      '.frameReady = e.data.layer + "," + e.data.head; });</script></body>'
                      % html.escape(html.unescape(frame), quote=True))
        out = browser("--dump-dom", "file://" + holder)
        assert 'data-frame-ready="0,0"' in out.stdout.decode("utf-8"), \
            "the view in its sandboxed frame never drew its first head"
