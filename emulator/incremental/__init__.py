"""Incremental snapshots (DBLog watermark windows), shared by every connector: the window machine
(machine.py), what lives in offsets (state.py), the checks of signal filters (conditions.py), the chunk
queries per SQL dialect (chunks.py) and the watermarking strategies (watermarks.py). Signals that drive it
live in emulator/signals/."""
