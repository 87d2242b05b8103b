"""PySpark sink: Debezium envelopes into mirror tables (issue 6)."""
