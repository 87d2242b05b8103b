"""What a converter raises on a record it cannot convert (Connect's `DataException`)."""


class ConversionError(ValueError):
    pass


class NotEmulated(ConversionError):
    """A record Debezium's converter would write and the emulator cannot (e.g. AvroConverter's
    `use.latest.version` with a latest schema other than the record's). Never skipped under
    `errors.tolerance=all`: Debezium writes that record, so skipping it would lose it; the task stops instead."""


# how the task's one line ends when it stops on a NotEmulated record (the data-plane campaign looks for it)
STOPS_ON_NOT_EMULATED = (
    "a record Debezium writes and the emulator does not: the task stops whatever errors.tolerance says"
)
