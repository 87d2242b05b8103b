"""The optional C accelerators: the MySQL/MariaDB line path's (emulator/fastline.c) and the Kafka output's
producer (emulator/fastkafka.c, on the librdkafka confluent-kafka bundles, opened at run time); everything
else is in pyproject.toml. optional=True: without a compiler or Python's headers (the python:3.11-slim and
debian-slim images) the build warns and installs the pure-Python package, which then formats lines with `%`
itself and produces through confluent-kafka."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "emulator.fastline",
            [
                "emulator/fastline.c",
                "emulator/fastrow.c",
                "emulator/fastcols.c",
                "emulator/fastpg.c",
                "emulator/fastpg_cut.c",
                "emulator/fastframe.c",
                "emulator/fastpg_copy.c",
                "emulator/fastpg_msg.c",
            ],
            depends=["emulator/fastline.h", "emulator/fastrow.h", "emulator/fastpg.h"],
            optional=True,
        ),
        Extension(
            "emulator.fastkafka",
            ["emulator/fastkafka.c", "emulator/fastkafka_batch.c", "emulator/fastkafka_route.c"],
            depends=["emulator/fastkafka.h"],
            libraries=["dl"],
            optional=True,
        ),
        # the Spark sink's readers' line scanner (sink/lines.py falls back to numpy without it)
        Extension("sink.fastscan", ["sink/fastscan.c"], optional=True),
    ]
)
