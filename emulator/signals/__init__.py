"""Debezium's signals: the records (record.py), the channels they arrive through (channels.py), the
processor that reads the channels and hands each signal to its action (processor.py) and the actions
(actions.py). See docs/signals.md."""
