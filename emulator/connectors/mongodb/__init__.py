"""MongoDB change-stream capture in Debezium's MongoDB format."""
