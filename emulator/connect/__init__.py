"""Kafka Connect data model: schemas and the JsonConverter wire format."""
