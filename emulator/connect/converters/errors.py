"""What a converter raises on a record it cannot convert (Connect's `DataException`)."""


class ConversionError(ValueError):
    pass
