"""A directory put on the PYTHONPATH of the Python processes Spark starts (`sink.job.BOOT`): its `sitecustomize`
runs at their start. A package only so that installs ship it."""
