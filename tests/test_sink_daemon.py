"""`sink.daemon` drops Spark's pyspark/py4j zips from the workers' path only when they are the packaged copy of the
pyspark importable without them (a pip install); a Spark distribution's zip, the only copy, stays."""

from __future__ import annotations

import os

from sink.daemon import packaged_zips


def _touch(path: str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").close()
    return path


def test_pip_install_zips_are_dropped(tmp_path):
    site = str(tmp_path / "site-packages")
    _touch(os.path.join(site, "pyspark", "__init__.py"))
    z1 = _touch(os.path.join(site, "pyspark", "python", "lib", "pyspark.zip"))
    z2 = _touch(os.path.join(site, "pyspark", "python", "lib", "py4j-0.10.9.9-src.zip"))
    path = [z1, z2, "/work/app", site]
    assert packaged_zips(path) == [z1, z2]


def test_distribution_zip_stays(tmp_path):
    home = str(tmp_path / "spark-4.0.0-bin")
    z = _touch(os.path.join(home, "python", "lib", "pyspark.zip"))
    site = str(tmp_path / "site-packages")
    os.makedirs(site)
    assert packaged_zips([z, site]) == []


def test_zip_of_another_installation_stays(tmp_path):
    # pyspark is importable from site-packages, but the zip comes from a different SPARK_HOME: not the same code
    site = str(tmp_path / "site-packages")
    _touch(os.path.join(site, "pyspark", "__init__.py"))
    z = _touch(os.path.join(str(tmp_path / "spark-home"), "python", "lib", "pyspark.zip"))
    assert packaged_zips([z, site]) == []


def test_no_zip_nothing_dropped(tmp_path):
    assert packaged_zips([str(tmp_path), "/usr/lib/python3.11"]) == []


def _start(tmp_path, path: list[str], code: str):
    import subprocess
    import sys

    from sink.job import BOOT

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*path[:2], BOOT, *path[2:]]))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)


def test_boot_drops_packaged_zips_at_the_start_and_leaves_the_path(tmp_path):
    # a Python process started with sink/boot on its PYTHONPATH (after Spark's two zips, as Spark orders them)
    site = str(tmp_path / "site-packages")
    _touch(os.path.join(site, "pyspark", "__init__.py"))
    z1 = _touch(os.path.join(site, "pyspark", "python", "lib", "pyspark.zip"))
    z2 = _touch(os.path.join(site, "pyspark", "python", "lib", "py4j-0.10.9.9-src.zip"))
    r = _start(
        tmp_path, [z1, z2, site], "import sys; print([p for p in sys.path if 'tmp' in p or 'boot' in p])"
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.strip() == repr([site])


def test_boot_runs_the_next_sitecustomize(tmp_path):
    # a user's own sitecustomize further on the path still runs, once, as the process's sitecustomize
    user = tmp_path / "user"
    user.mkdir()
    (user / "sitecustomize.py").write_text(
        "import os\nos.environ['USER_SITE_RAN'] = os.environ.get('USER_SITE_RAN', '') + 'x'\n"
    )
    r = _start(
        tmp_path,
        ["/nowhere/a.zip", "/nowhere/b.zip", str(user)],
        "import os, sys; print(os.environ.get('USER_SITE_RAN'), sys.modules['sitecustomize'].__file__)",
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.split() == ["x", str(user / "sitecustomize.py")]
