"""`pip install --no-build-isolation .` as a Python user runs it, offline, in a
fresh virtual environment (Debian's python3-venv, seeing Debian's numpy):
the package installs into the environment, imports from there (not from the
source tree or the build folder), says its version, and analyses. The build
folder is the test build's (SINKSCOPE_BUILD_DIR), so only the module is
brought up to date; the same command on a fresh clone configures build/pip."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCE = os.environ["SINKSCOPE_SOURCE_DIR"]
BUILD = os.environ["SINKSCOPE_BUILD_DIR"]


def test_pip_installs_the_module_offline_into_a_fresh_environment():
    version = re.search(r"project\(sinkscope VERSION ([0-9.]+)",
                        open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8").read()).group(1)
    home = tempfile.mkdtemp(prefix="sinkscope-pip-")
    try:
        venv = os.path.join(home, "venv")
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv],
                       check=True, capture_output=True)
        python = os.path.join(venv, "bin", "python3")
        env = dict(os.environ, SINKSCOPE_BUILD_DIR=BUILD, PIP_NO_INDEX="1",
                   PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("PYTHONPATH", None)  # the installed package, not the build folder's
        installed = subprocess.run(
            [python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", SOURCE],
            env=env, capture_output=True, text=True, timeout=1200)
        assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
        check = subprocess.run(
            [python, "-c",
             "import sinkscope, numpy as np; "
             "a = np.tril(np.ones((1, 2, 5, 5))); a /= a.sum(-1, keepdims=True); "
             "t = sinkscope.analyze(a)['sink_summary']; "
             "print(sinkscope.__version__); print(sinkscope.__file__); print(len(t))"],
            env=env, cwd=home, capture_output=True, text=True, timeout=300)
        assert check.returncode == 0, check.stderr
        shown_version, where, rows = check.stdout.split()
        assert shown_version == version
        assert where.startswith(venv), where
        assert rows == "3"  # the head average and two heads
        # Nothing of pip's left in the source tree's top level.
        assert not [n for n in os.listdir(SOURCE) if n.endswith(".egg-info")]
    finally:
        shutil.rmtree(home, ignore_errors=True)
