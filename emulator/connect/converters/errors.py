"""What a converter raises on a record it cannot convert (Connect's `DataException`)."""


class ConversionError(ValueError):
    pass


class NotEmulated(ConversionError):
    """A record Debezium's converter would write and the emulator cannot (e.g. AvroConverter's
    `use.latest.version` with a latest schema other than the record's). Never skipped under
    `errors.tolerance=all`: Debezium writes that record, so skipping it would lose it; the task stops instead."""
