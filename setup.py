"""The optional C accelerator of the MySQL/MariaDB line path (emulator/fastline.c); everything else is in
pyproject.toml. optional=True: without a compiler or Python's headers (the python:3.11-slim and debian-slim
images) the build warns and installs the pure-Python package, which then formats lines with `%` itself."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "emulator.fastline",
            ["emulator/fastline.c", "emulator/fastrow.c", "emulator/fastcols.c"],
            depends=["emulator/fastline.h", "emulator/fastrow.h"],
            optional=True,
        )
    ]
)
