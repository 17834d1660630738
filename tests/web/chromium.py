"""Headless Chromium for the web tests: each run with a profile of its own (a
user's browser is never touched) and a virtual-time budget, so that a page's
asynchronous drawing has finished before its DOM or picture is taken. No
network is needed: the pages are single files."""

import shutil
import subprocess
import tempfile

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def browser(*args):
    if CHROMIUM is None:
        raise RuntimeError("chromium is not installed (installer/install-deps.sh installs it)")
    profile = tempfile.mkdtemp(prefix="sinkscope-chromium-")
    try:
        return subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--user-data-dir=" + profile, "--virtual-time-budget=10000", *args],
            check=True, capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
