"""SinkScope's Python module for pip: `pip install --no-build-isolation .`

CMake builds the module's C++ core (the target sinkscope_python, the same code
as sinkscope-cli) in build/pip, or in SINKSCOPE_BUILD_DIR when that names a
folder already configured (then only the module is brought up to date); the
package's Python files come from app/python/sinkscope. The version is the
project's (CMakeLists.txt)."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
VERSION = re.search(r"project\(sinkscope VERSION ([0-9.]+)",
                    (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")).group(1)
# setuptools' own work files stay out of the source tree's top level.
WORK = ROOT / "build" / "pip-setuptools"
WORK.mkdir(parents=True, exist_ok=True)


class CMakeBuild(build_ext):
    """The core as CMake builds it, copied where setuptools installs extensions from."""

    def build_extension(self, ext):
        build = pathlib.Path(os.environ.get("SINKSCOPE_BUILD_DIR") or ROOT / "build" / "pip")
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                            "-DSINKSCOPE_BUILD_TESTS=OFF", "-DSINKSCOPE_BUILD_BENCHMARKS=OFF",
                            "-DPYTHON_EXECUTABLE=" + sys.executable], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "sinkscope_python",
                        "--parallel", str(os.cpu_count() or 2)], check=True)
        built = sorted((build / "python" / "sinkscope").glob("_core*.so"))
        if not built:
            raise RuntimeError("CMake built no sinkscope/_core module in %s (is python3-pybind11 "
                               "installed?)" % build)
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)


setup(
    name="sinkscope",
    version=VERSION,
    description="Attention sinks of transformer language models: analyses, tables and "
                "interactive views (SinkScope's Python module)",
    packages=["sinkscope"],
    package_dir={"sinkscope": "app/python/sinkscope"},
    ext_modules=[Extension("sinkscope._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    options={"build": {"build_base": str(WORK)}, "egg_info": {"egg_base": str(WORK)}},
)
